#!/usr/bin/env python3
"""Renders the Mermaid diagrams of the chapters (Docs/*.md) to SVG images in Docs/Images/.

GitHub draws a ```mermaid block itself; the rendered site (DocC) cannot, so it shows these images
instead. Each image is named after its chapter and its place there (`02-private-parent-1.svg` is the
first diagram of chapter 2), and starts with a comment holding the SHA-256 of the diagram's source, the
Mermaid version and the settings it was drawn with. So `--check` knows, without a browser, whether every
image is of the diagram the chapter has today.

Usage:
  python3 Docs/Tools/render_diagrams.py           # (re)draws the images whose source changed
  python3 Docs/Tools/render_diagrams.py --all     # redraws every image
  python3 Docs/Tools/render_diagrams.py --check   # fails when an image is missing, stale or left over
  python3 Docs/Tools/render_diagrams.py --out DIR --all   # draws into DIR instead (CI proves the drawing works)

Drawing needs, all from the machine's registries (no npm):
  - Chromium and its driver, from Debian: apt-get install chromium chromium-driver
  - Selenium, from PyPI: pip install selenium
  - Mermaid itself: the copy NiceGUI ships in its wheel (MIT licensed), fetched from PyPI with
    `pip download` into .build/mermaid/ the first time; nothing is installed.
Every diagram must have an `accTitle:` line: it becomes the image's alternative text on the site.
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "Docs"
IMAGES = DOCS / "Images"
CACHE = ROOT / ".build" / "mermaid"
NICEGUI = "nicegui==3.18.0"  # ships Mermaid 11.16.1 as ES modules in nicegui/elements/mermaid/dist
MERMAID_VERSION = "11.16.1"
# Plain SVG text (no HTML labels in foreignObject) so the image draws the same inside an <img>.
CONFIG = {
    "startOnLoad": False,
    "theme": "neutral",
    "securityLevel": "strict",
    "deterministicIds": True,
    "fontFamily": "Helvetica, Arial, sans-serif",
    # Flowcharts: nodes closer together and labels wrapped sooner, for the same reason as below.
    "flowchart": {"htmlLabels": False, "nodeSpacing": 25, "wrappingWidth": 130},
    # Sequence diagrams: Mermaid sizes the gap between two lifelines to the longest message between them,
    # so long messages made drawings ~1,400 px wide, whose 16 px text shrank to ~8 px in the site's column.
    # Wrapping each message and note to the lifelines' gap keeps the drawing about as wide as the column.
    "sequence": {"wrap": True, "width": 190, "actorMargin": 20, "diagramMarginX": 10, "messageFontSize": 16, "noteFontSize": 16},
}
# Bumped when the drawing changes for reasons other than the source and CONFIG (this script's own steps).
REVISION = 3
STAMP = re.compile(r"^<!-- mermaid-source-sha256: ([0-9a-f]{64}) -->\n")


@dataclass
class Diagram:
    chapter: Path
    index: int
    line: int
    source: str

    @property
    def name(self) -> str:
        return f"{self.chapter.stem}-{self.index}"

    @property
    def image(self) -> Path:
        return IMAGES / f"{self.name}.svg"

    @property
    def digest(self) -> str:
        settings = json.dumps(CONFIG, sort_keys=True)
        return hashlib.sha256(f"{MERMAID_VERSION}\n{REVISION}\n{settings}\n{self.source}".encode()).hexdigest()

    @property
    def title(self) -> str | None:
        match = re.search(r"^\s*accTitle:\s*(.+?)\s*$", self.source, re.MULTILINE)
        return match.group(1) if match else None


def diagrams() -> list[Diagram]:
    """Every ```mermaid block of Docs/*.md, in file order."""
    found: list[Diagram] = []
    for chapter in sorted(DOCS.glob("*.md")):
        lines = chapter.read_text().split("\n")
        index = 0
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```mermaid":
                start = i
                i += 1
                body: list[str] = []
                while i < len(lines) and lines[i].strip() != "```":
                    body.append(lines[i])
                    i += 1
                index += 1
                found.append(Diagram(chapter, index, start + 1, "\n".join(body) + "\n"))
            i += 1
    return found


def stamp_of(path: Path) -> str | None:
    if not path.exists():
        return None
    match = STAMP.match(path.read_text())
    return match.group(1) if match else None


def check(all_diagrams: list[Diagram]) -> int:
    problems: list[str] = []
    for diagram in all_diagrams:
        where = f"{diagram.chapter.relative_to(ROOT)}:{diagram.line}"
        if diagram.title is None:
            problems.append(f"{where}: the diagram has no 'accTitle:' line (the site's alternative text)")
        stamp = stamp_of(diagram.image)
        if stamp is None:
            problems.append(f"{where}: no image {diagram.image.relative_to(ROOT)}")
        elif stamp != diagram.digest:
            problems.append(f"{where}: {diagram.image.relative_to(ROOT)} is of an older version of the diagram")
    expected = {d.image.name for d in all_diagrams}
    for image in sorted(IMAGES.glob("*.svg")):
        if image.name not in expected:
            problems.append(f"{image.relative_to(ROOT)} belongs to no diagram any more: delete it")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("Run `python3 Docs/Tools/render_diagrams.py` to draw the images again.", file=sys.stderr)
        return 1
    print(f"{len(all_diagrams)} diagrams, every image up to date")
    return 0


def mermaid_dist() -> Path:
    """The folder holding Mermaid's ES modules, fetched from PyPI on first use."""
    dist = CACHE / "dist"
    if (dist / "index.js").exists():
        return dist
    CACHE.mkdir(parents=True, exist_ok=True)
    download = CACHE / "download"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(download), NICEGUI],
        check=True)
    wheel = next(download.glob("nicegui-*.whl"))
    prefix = "nicegui/elements/mermaid/dist/"
    staging = CACHE / "staging"
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if member.startswith(prefix) and not member.endswith("/"):
                target = staging / member[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(member))
    staging.rename(dist)
    return dist


PAGE = """<!doctype html>
<html><head><meta charset="utf-8"></head><body>
<script type="module">
import { mermaid } from "./dist/index.js";
mermaid.initialize(CONFIG_JSON);
// Mermaid's own markup is HTML (a <br> left open); an image file must be XML, so it goes through the DOM.
window.renderDiagram = async (id, source) => {
  const holder = document.createElement("div");
  holder.innerHTML = (await mermaid.render(id, source)).svg;
  document.body.appendChild(holder);
  // Mermaid sizes the drawing to its container (width 100%); an image needs its own size.
  const svg = holder.firstElementChild;
  const box = svg.viewBox.baseVal;
  svg.setAttribute("width", Math.ceil(box.width));
  svg.setAttribute("height", Math.ceil(box.height));
  svg.style.removeProperty("max-width");
  // A white ground, so the drawing reads the same on a dark page (the tutorials' pages are dark).
  const ground = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const [name, value] of [["x", box.x], ["y", box.y], ["width", box.width], ["height", box.height], ["fill", "white"]]) {
    ground.setAttribute(name, value);
  }
  svg.insertBefore(ground, svg.firstChild);
  const xml = new XMLSerializer().serializeToString(svg);
  holder.remove();
  return xml;
};
window.mermaidReady = true;
</script>
</body></html>
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def render(targets: list[Diagram], out: Path) -> int:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    dist = mermaid_dist()
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder)
        (site / "dist").symlink_to(dist)
        (site / "index.html").write_text(PAGE.replace("CONFIG_JSON", json.dumps(CONFIG)))

        def handler(*args, **kwargs):
            return QuietHandler(*args, directory=str(site), **kwargs)

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
            options.add_argument(argument)
        driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
        try:
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
            WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.mermaidReady === true"))
            out.mkdir(parents=True, exist_ok=True)
            for diagram in targets:
                svg = driver.execute_async_script(
                    "const done = arguments[arguments.length - 1];"
                    "window.renderDiagram(arguments[0], arguments[1]).then(done, e => done('ERROR ' + e));",
                    # A CSS id selector cannot start with a digit, and Mermaid scopes its styles by the id.
                    f"diagram-{diagram.name}", diagram.source)
                if not svg.startswith("<svg"):
                    print(f"{diagram.chapter.relative_to(ROOT)}:{diagram.line}: Mermaid failed: {svg}", file=sys.stderr)
                    return 1
                target = out / f"{diagram.name}.svg"
                target.write_text(f"<!-- mermaid-source-sha256: {diagram.digest} -->\n{svg}\n")
                print(f"drew {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
        finally:
            driver.quit()
            server.shutdown()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only check the images against the chapters")
    parser.add_argument("--all", action="store_true", help="redraw every image, not just the stale ones")
    parser.add_argument("--out", type=Path, help="draw into this folder instead of Docs/Images")
    arguments = parser.parse_args()
    all_diagrams = diagrams()
    if arguments.check:
        return check(all_diagrams)
    untitled = [d for d in all_diagrams if d.title is None]
    for diagram in untitled:
        print(f"{diagram.chapter.relative_to(ROOT)}:{diagram.line}: add an 'accTitle:' line", file=sys.stderr)
    if untitled:
        return 1
    out = arguments.out or IMAGES
    targets = [d for d in all_diagrams if arguments.all or arguments.out or stamp_of(d.image) != d.digest]
    if out == IMAGES:
        expected = {d.image.name for d in all_diagrams}
        for image in IMAGES.glob("*.svg"):
            if image.name not in expected:
                image.unlink()
                print(f"deleted {image.relative_to(ROOT)}")
    if not targets:
        print("every image is up to date")
        return 0
    return render(targets, out)


if __name__ == "__main__":
    sys.exit(main())
