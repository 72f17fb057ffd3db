#!/usr/bin/env python3
"""CI: opens the rendered site in a real headless browser and checks every page of it.

Starts `workshop docs --port 0` (the learner's command; the workshop binary must be built), then, in
Chromium driven by Selenium, opens the front page, every chapter and reference page, every tutorial, and
the landing page and a few symbol pages of the engine's symbol reference (REFERENCE_PAGES),
and checks on each:
  - the page rendered (DocC's app drew a title, not its "page not found");
  - every image loaded (a diagram that did not load has no width) and has alternative text;
  - every link inside the site or the repository answers 200, and a link to a heading finds it;
  - the browser's console logged no error;
  - no code block of a chapter scrolls sideways (they wrap at the text column's width), and no tutorial's
    code pane cuts a line (its step files are wrapped for the pane);
  - a tutorial's intro has no image behind its title (DocC scales an @Intro image up behind the title,
    where a diagram cannot be read), and its title does not repeat the stage line above it;
  - no title in the sidebar of the workshop's pages is cut short (DocC ends a long one with "…");
  - no identifier, type name or word breaks across two lines (DocC offers a break at each camel-case
    hump of inline code; the site's header style turns those off), and no table scrolls sideways;
  - the text of every diagram reads at MIN_DIAGRAM_TEXT_PX or more as drawn on the page: the font size
    inside the SVG times the scale the page draws the image at (a wide drawing is shrunk to the column).
Links to other sites are counted, not followed (CI has no network). Screenshots of a chapter (its top and
its last diagram), of a tutorial (its top and its fourth step) and of a reference page are kept in
.build/site-screenshots/, for a person to look at (CI keeps them as artifacts).

Needs chromium and chromium-driver (Debian) and selenium (PyPI); .ci/run installs them.
Usage: python3 .ci/check-site.py [path/to/workshop]
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urldefrag, urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / ".build" / "site-screenshots"
# The pages photographed: a chapter and a tutorial of the same stage, and a page of the reference.
# The smallest font size, in CSS pixels as the browser draws it, that diagram text may have on a page.
MIN_DIAGRAM_TEXT_PX = 12.0
# For each diagram image on the page: its file name, the width the page draws it at, the width of its
# drawing (the viewBox), and the smallest font size of its text (the SVG put into the page off screen, so
# that Mermaid's own style rules apply, then read with getComputedStyle).
DIAGRAM_TEXT_SIZES = """
const done = arguments[arguments.length - 1];
(async () => {
  const found = [];
  for (const image of Array.from(document.images)) {
    const source = image.currentSrc || image.src;
    if (!/\/images\/.*\.svg(\?|$)/.test(source) || image.clientWidth === 0) continue;
    const markup = await (await fetch(source)).text();
    const parsed = new DOMParser().parseFromString(markup, "image/svg+xml").documentElement;
    const holder = document.createElement("div");
    holder.style.cssText = "position:absolute; left:-100000px; top:0; visibility:hidden";
    holder.appendChild(document.importNode(parsed, true));
    document.body.appendChild(holder);
    const svg = holder.firstElementChild;
    const drawn = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width
      ? svg.viewBox.baseVal.width : parseFloat(svg.getAttribute("width"));
    const sizes = Array.from(svg.querySelectorAll("text, tspan"))
      .filter(t => t.textContent.trim().length > 0)
      .map(t => parseFloat(getComputedStyle(t).fontSize));
    holder.remove();
    // A line Mermaid broke inside a word ends with the hyphen it added ("NSPersistentStoreCoord-").
    const broken = Array.from(svg.querySelectorAll("text, tspan"))
      .filter(t => t.children.length === 0 && /[A-Za-z0-9_]-$/.test(t.textContent.trim()))
      .map(t => t.textContent.trim());
    found.push([source.split("/").pop().split("?")[0], image.getBoundingClientRect().width, drawn, Math.min(...sizes), broken]);
  }
  return found;
})().then(done, error => done([["ERROR " + error, 0, 1, 0, []]]));
"""
# Words broken across two lines in the page's text (not its code listings, which have their own check, nor
# the symbol reference's declarations, `code` with a class, which DocC breaks at will): walks the text of
# `main` character by character and reports each place where a line starts between two word characters.
# A break at one of DocC's camel-case breaks of inline code is counted apart when its table is one the
# site's script had to loosen to fit its column (`data-words-broken`, Tools/Workshop/Site/SiteStyle.swift).
BROKEN_WORDS = """
const found = [];
let loosened = 0;
const walker = document.createTreeWalker(document.querySelector('main') || document.body, NodeFilter.SHOW_TEXT, {
  acceptNode: n => n.parentElement.closest('.code-listing, pre, code[class], .visuallyhidden, svg')
    ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT });
let lastTop = null, last = ' ', before = '', block = null, node;
while ((node = walker.nextNode())) {
  const text = node.textContent;
  // A new paragraph, cell or heading starts a new line anyway.
  const here = node.parentElement.closest('p, li, td, th, h1, h2, h3, h4, dt, dd, figcaption, div');
  if (here !== block) { block = here; last = ' '; }
  for (let i = 0; i < text.length; i++) {
    if (/\\s/.test(text[i])) { last = ' '; before += ' '; continue; }
    const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
    const rect = range.getClientRects()[0];
    if (!rect || rect.width === 0) continue;
    if (lastTop !== null && rect.top > lastTop + 2 && /\\w/.test(last) && /\\w/.test(text[i])) {
      if (i === 0 && node.parentElement.closest('table[data-words-broken] code, code[data-words-broken]')) loosened += 1;
      else found.push(before.slice(-30).trimStart() + '|' + text.slice(i, i + 20).split(/\\s/)[0]);
    }
    lastTop = rect.top; last = text[i]; before = (before + text[i]).slice(-40);
  }
}
return [found, loosened];
"""
# The engine's symbol reference (`workshop docs` merges it into the site): its landing page and a few symbol
# pages are opened like the others; every type's page is linked from the landing page, so the link check
# reaches them all. Opening every member's page (some 800) would take many minutes.
REFERENCE_PAGES = [
    "/documentation/objectgraph",
    "/documentation/objectgraph/nsmanagedobjectcontext",
    "/documentation/objectgraph/nspersistentcontainer",
    "/documentation/objectgraph/nspersistentstorecoordinator",
    "/documentation/objectgraph/nsfetchrequest",
    "/documentation/objectgraph/nsmanagedobjectcontext/save()",
]
PHOTOGRAPHED = {
    "/documentation/workshop/03-async-loading": "chapter-03",
    "/tutorials/workshop/stage3": "tutorial-stage3",
    "/documentation/objectgraph/nsmanagedobjectcontext": "reference-nsmanagedobjectcontext",
}


def start_server(workshop: str) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(
        [workshop, "docs", "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert server.stdout is not None
    deadline = time.time() + 300
    for line in server.stdout:
        print(f"  | {line.rstrip()}")
        match = re.search(r"Serving the site at (http://127\.0\.0\.1:\d+)/", line)
        if match:
            return server, match.group(1)
        if time.time() > deadline:
            break
    server.kill()
    sys.exit("CI: `workshop docs` did not start serving the site (its output is above)")


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def pages_of(site: Path) -> list[str]:
    """Every page of the rendered site, as paths: the front page, the articles, the tutorials."""
    pages = []
    for kind in ("documentation", "tutorials"):
        base = site / kind / "workshop"
        pages.append(f"/{kind}/workshop")
        pages += sorted(f"/{kind}/workshop/{folder.name}" for folder in base.iterdir() if (folder / "index.html").exists())
    return pages


def main() -> int:
    workshop = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / ".build" / "debug" / "workshop")
    server, base = start_server(workshop)
    site = ROOT / ".build" / "workshop-site" / "site"
    problems: list[str] = []
    checked_links: dict[str, int] = {}
    anchors: dict[str, set[str]] = {}
    external: set[str] = set()
    images = 0
    diagram_text: list[tuple[float, str, str]] = []
    loosened_tables: list[tuple[str, int, int]] = []
    cut_titles: set[str] = set()
    driver = browser()
    try:
        pages = pages_of(site)
        for path in REFERENCE_PAGES:
            if not (site / path.lstrip("/") / "index.html").exists():
                problems.append(f"{path}: the engine's symbol reference has no such page (was it rendered?)")
        pages += [path for path in REFERENCE_PAGES if (site / path.lstrip("/") / "index.html").exists()]
        chapters = sorted(p.stem.lower() for p in (ROOT / "Docs").glob("*.md") if p.name != "README.md")
        for chapter in chapters:
            if f"/documentation/workshop/{chapter}" not in pages:
                problems.append(f"Docs/{chapter}.md has no page on the site")

        def open_page(path: str) -> bool:
            driver.get(base + path)
            try:
                WebDriverWait(driver, 30).until(lambda d: d.execute_script(
                    "const h = document.querySelector('h1, h2.title, .hero .title');"
                    "return h !== null && h.textContent.trim().length > 0;"))
            except Exception:
                problems.append(f"{path}: the page did not render a title within 30 s")
                return False
            if "can't be found" in driver.find_element("tag name", "body").text:
                problems.append(f"{path}: the site says the page cannot be found")
                return False
            return True

        for path in pages:
            if not open_page(path):
                continue
            # Images: bring each into view (DocC loads them lazily), then wait for them all.
            driver.execute_script("for (const i of document.images) { i.loading = 'eager'; i.scrollIntoView(); }")
            try:
                WebDriverWait(driver, 30).until(
                    lambda d: d.execute_script("return Array.from(document.images).every(i => i.complete)"))
            except Exception:
                problems.append(f"{path}: images still loading after 30 s")
            for source, width, alt in driver.execute_script(
                    "return Array.from(document.images).map(i => [i.currentSrc || i.src, i.naturalWidth, i.alt])"):
                images += 1
                if width == 0:
                    problems.append(f"{path}: the image {source} did not load")
                if "/images/" in source and not alt.strip():
                    problems.append(f"{path}: the image {source} has no alternative text")
            # Links.
            for href in driver.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"):
                parsed = urlparse(href)
                if parsed.scheme not in ("http", "https"):
                    continue
                if not href.startswith(base):
                    external.add(href)
                    continue
                target, fragment = urldefrag(href)
                if target not in checked_links:
                    checked_links[target] = status_of(target)
                if checked_links[target] != 200:
                    problems.append(f"{path}: the link {href} answers {checked_links[target]}")
                elif fragment:
                    anchors.setdefault(target, set()).add(fragment)
            # Code blocks of the chapters wrap, and a tutorial's code pane shows whole lines (its step files
            # are wrapped for it): none is wider than the column it sits in. (The reference's declarations are
            # DocC's own, and scroll.)
            if path.startswith("/documentation/workshop") or path.startswith("/tutorials/"):
                for width, shown in driver.execute_script(
                        "return Array.from(document.querySelectorAll('.code-listing, .code-listing *'))"
                        ".filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')"
                        ".map(e => [e.scrollWidth, e.clientWidth])"):
                    problems.append(f"{path}: a code block scrolls sideways ({width} px of code in {shown} px)")
            # Words and identifiers are whole on a line, and tables fit their column.
            broken_words, loosened = driver.execute_script(BROKEN_WORDS)
            if loosened and (re.match(r"/documentation/workshop/\d", path) or path.startswith("/tutorials/")):
                problems.append(f"{path}: {loosened} identifier(s) break at a camel-case hump, as a table's column or "
                                "a line is too narrow for them whole; a chapter or tutorial needs no such break: "
                                "split the table's longest cells or rephrase")
            elif loosened:
                loosened_tables.append((path, driver.execute_script(
                    "return document.querySelectorAll('main table[data-words-broken], main code[data-words-broken]').length"),
                    loosened))
            for broken in broken_words:
                problems.append(f"{path}: a word is broken across two lines at \"{broken}\" (the break is at |)")
            for width, shown, start in driver.execute_script(
                    "return Array.from(document.querySelectorAll('main table'))"
                    ".filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1)"
                    ".map(t => [t.parentElement.scrollWidth, t.parentElement.clientWidth, t.innerText.slice(0, 40)])"):
                problems.append(f"{path}: a table scrolls sideways ({width} px in {shown} px), the one starting "
                                f"\"{' '.join(start.split())}\"; shorten its longest unbreakable cells")
            # The sidebar of the workshop's pages shows each title whole (the reference's long symbol names
            # are DocC's own).
            if path.startswith("/documentation/workshop"):
                for title, width, shown in driver.execute_script(
                        "return Array.from(document.querySelectorAll('.navigator-card .leaf-link'))"
                        ".filter(e => e.scrollWidth > e.clientWidth + 1)"
                        ".map(e => [e.textContent.trim(), e.scrollWidth, e.clientWidth])"):
                    if title in cut_titles:
                        continue
                    cut_titles.add(title)
                    problems.append(f"{path}: the sidebar cuts the title \"{title}\" ({width} px in {shown} px); "
                                    "shorten the page's title")
            # A tutorial's title does not repeat the line above it (the @Chapter's name, from Workshop.tutorial).
            if path.startswith("/tutorials/"):
                for eyebrow, title in driver.execute_script(
                        "return Array.from(document.querySelectorAll('.tutorial-hero')).map(h => ["
                        "(h.querySelector('.eyebrow') || {textContent: ''}).textContent.trim(),"
                        "(h.querySelector('.heading') || {textContent: ''}).textContent.trim()])"):
                    if eyebrow and title and (eyebrow.lower() in title.lower() or title.lower() in eyebrow.lower()):
                        problems.append(f"{path}: the intro's title \"{title}\" repeats the line above it "
                                        f"\"{eyebrow}\"; name the @Chapter for the stage and the @Intro for its lesson")
            # A tutorial's intro: DocC draws an @Intro image as the background behind the title, scaled up.
            if path.startswith("/tutorials/"):
                for image in driver.execute_script(
                        "return Array.from(document.querySelectorAll('.bg'))"
                        ".map(e => getComputedStyle(e).backgroundImage).filter(b => b && b !== 'none')"):
                    problems.append(f"{path}: the intro shows an image behind the title ({image}); give @Intro no @Image")
            # Diagram text is big enough to read as the page draws it (the overview's small cards excepted:
            # they show a chapter's picture, and the chapter itself shows it readable).
            if path not in ("/tutorials/workshop", "/documentation/workshop"):
                for name, shown, drawn, font, broken in driver.execute_async_script(DIAGRAM_TEXT_SIZES):
                    if name.startswith("ERROR"):
                        problems.append(f"{path}: could not measure the diagrams' text: {name}")
                        continue
                    for line in broken:
                        problems.append(f"{path}: {name} breaks a word with a hyphen (\"{line}\"): give Mermaid room "
                                        "(`nowrap:` before a participant's name) or a <br/> where it may break")
                    rendered = font * shown / drawn
                    diagram_text.append((rendered, path, name))
                    if rendered < MIN_DIAGRAM_TEXT_PX:
                        problems.append(
                            f"{path}: the text of {name} reads at {rendered:.1f} px (its {font:g} px font drawn "
                            f"{drawn:.0f} px wide, shrunk to {shown:.0f} px); diagram text needs "
                            f"{MIN_DIAGRAM_TEXT_PX:g} px or more: make the drawing narrower (Docs/Tools/render_diagrams.py)")
            if path in PHOTOGRAPHED:
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                driver.execute_script("window.scrollTo(0, 0)")
                driver.save_screenshot(str(SCREENSHOTS / f"{PHOTOGRAPHED[path]}.png"))
                # And its last diagram, as the page draws it (a sequence diagram on the chapter).
                if driver.execute_script(
                        "const d = Array.from(document.images).filter(i => /\\/images\\/.*\\.svg/.test(i.currentSrc || i.src));"
                        "if (d.length === 0) return false; d[d.length - 1].scrollIntoView(); window.scrollBy(0, -70); return true;"):
                    driver.save_screenshot(str(SCREENSHOTS / f"{PHOTOGRAPHED[path]}-diagram.png"))
                # And a tutorial's fourth step, with its code beside it: DocC switches the code as the page
                # scrolls past a step, so scroll down in small moves, then bring the step's first
                # highlighted line into view.
                if path.startswith("/tutorials/") and driver.execute_script("return document.querySelectorAll('.step').length >= 4"):
                    target = driver.execute_script(
                        "const s = document.querySelectorAll('.step')[3].getBoundingClientRect();"
                        "return window.scrollY + s.top + s.height / 2 - window.innerHeight / 2;")
                    for y in range(0, int(target), 150):
                        driver.execute_script("window.scrollTo(0, arguments[0])", y)
                        time.sleep(0.2)
                    for step in range(0, 301, 100):
                        driver.execute_script("window.scrollTo(0, arguments[0])", int(target) + step)
                        time.sleep(0.3)
                        if driver.execute_script("return document.querySelectorAll('.step')[3].classList.contains('focused')"):
                            break
                    time.sleep(1.5)
                    driver.execute_script(
                        "const h = Array.from(document.querySelectorAll('.highlighted')).find(e => e.offsetParent !== null);"
                        "if (h) h.scrollIntoView({block: 'center'});")
                    time.sleep(0.5)
                    driver.save_screenshot(str(SCREENSHOTS / f"{PHOTOGRAPHED[path]}-step4.png"))
            # The console.
            for entry in driver.get_log("browser"):
                if entry.get("level") == "SEVERE":
                    problems.append(f"{path}: console error: {entry.get('message')}")

        # Links to headings: open each target once and look for every heading it is asked for.
        for target, fragments in sorted(anchors.items()):
            path = target[len(base):]
            if not open_page(path):
                continue
            for fragment in sorted(fragments):
                if not driver.execute_script("return document.getElementById(arguments[0]) !== null", fragment):
                    problems.append(f"a link to {path}#{fragment} finds no such heading")
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=30)

    print(f"site: {len(pages)} pages, {images} images, {len(checked_links)} internal links "
          f"({sum(len(f) for f in anchors.values())} to headings), {len(external)} links to other sites not followed; "
          f"screenshots in {SCREENSHOTS.relative_to(ROOT)}/")
    for path, tables, breaks in loosened_tables:
        print(f"{path}: {tables} table(s) or line(s) too narrow for their identifiers whole break them at DocC's "
              f"camel-case breaks, {breaks} time(s) (no word is broken anywhere else)")
    if diagram_text:
        smallest = min(diagram_text)
        print(f"diagram text: {len(diagram_text)} diagrams measured, the smallest text reads at {smallest[0]:.1f} px "
              f"({smallest[2]} on {smallest[1]}); at least {MIN_DIAGRAM_TEXT_PX:g} px is required")
    else:
        problems.append("no diagram was measured: the readability check found no diagram image on any page")
    for path in PHOTOGRAPHED:
        if path not in pages:
            problems.append(f"{path}: not on the site, so it could not be photographed")
    for problem in problems:
        print(f"CI: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
