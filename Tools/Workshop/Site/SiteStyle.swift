import Foundation

/// What the site adds to DocC's pages: inline code is not broken inside a word.
///
/// DocC offers a line break (a `<wbr>`) at every camel-case hump of inline code as well as after its
/// colons, dots and slashes, so a table cell could end a line with `PersistentStore` and start the next
/// with `Coordinator`. A small script hides each `<wbr>` of DocC's code voice (a `<code>` without a class)
/// that stands between two word characters, as DocC draws a page, and keeps the ones after punctuation:
/// `destroyPersistentStore(at:type:options:)` may still end a line after a colon, a path after a slash.
///
/// One exception, so that nothing is cut or scrolls: a table whose columns cannot hold its identifiers
/// whole (the engine reference's three-column tables of Core Data's longest names) gets DocC's breaks back,
/// longest identifier first, until it fits its column; the table is marked `data-words-broken` with how
/// many identifiers that took; so is an identifier longer than its paragraph's line
/// (`data-words-broken` on the `<code>`). `.ci/check-site.py` allows hump breaks only there, and the chapters
/// need none. Code with a class (the symbol reference's declarations and topic titles) is DocC's own
/// and keeps its breaks.
///
/// DocC takes no style or script from a catalog for the whole page (its custom header is drawn in a
/// shadow root, which the page's code is outside of), so this is added to each page DocC wrote: every
/// `index.html` of a static site is the same small file that loads DocC's app, and this goes before its
/// `</head>`.
enum SiteStyle {
  static let marker = "workshop-site-style"
  static let element = """
    <script id="\(marker)">
    (() => {
      const seen = new WeakSet();
      const isHump = mark => {
        const before = mark.previousSibling ? mark.previousSibling.textContent : "";
        const after = mark.nextSibling ? mark.nextSibling.textContent : "";
        return /\\w$/.test(before) && /^\\w/.test(after);
      };
      const scrolls = table => table.parentElement.scrollWidth > table.parentElement.clientWidth + 1;
      const loosen = table => {
        if (!scrolls(table)) return;
        const codes = Array.from(table.querySelectorAll("code:not([class])"))
          .filter(code => Array.from(code.querySelectorAll("wbr")).some(mark => mark.style.display === "none"))
          .sort((a, b) => b.textContent.length - a.textContent.length);
        let broken = Number(table.dataset.wordsBroken || 0);
        for (const code of codes) {
          for (const mark of code.querySelectorAll("wbr")) mark.style.display = "";
          table.dataset.wordsBroken = String(++broken);
          if (!scrolls(table)) return;
        }
      };
      // Outside a table: an identifier longer than its paragraph's line gets DocC's breaks back.
      const widest = code => {
        const probe = code.cloneNode(true);
        probe.style.cssText = "position: absolute; visibility: hidden; width: min-content";
        code.parentElement.appendChild(probe);
        const width = probe.getBoundingClientRect().width;
        probe.remove();
        return width;
      };
      const fit = code => {
        const block = code.parentElement.closest("p, li, dd, dt, h1, h2, h3, h4, div");
        if (block && widest(code) > block.clientWidth) {
          for (const mark of code.querySelectorAll("wbr")) mark.style.display = "";
          code.dataset.wordsBroken = "1";
        }
      };
      const keepWordsWhole = () => {
        const tables = new Set();
        const codes = new Set();
        for (const mark of document.querySelectorAll("code:not([class]) wbr")) {
          if (seen.has(mark)) continue;
          seen.add(mark);
          if (!isHump(mark)) continue;
          mark.style.display = "none";
          const table = mark.closest("table");
          if (table) tables.add(table);
          else codes.add(mark.closest("code"));
        }
        tables.forEach(loosen);
        codes.forEach(fit);
      };
      new MutationObserver(keepWordsWhole).observe(document.documentElement, { childList: true, subtree: true });
      // A wider or narrower window: every table starts whole again and is loosened only as far as it must be.
      addEventListener("resize", () => {
        for (const table of document.querySelectorAll("table")) {
          delete table.dataset.wordsBroken;
          for (const mark of table.querySelectorAll("code:not([class]) wbr")) if (isHump(mark)) mark.style.display = "none";
          loosen(table);
        }
      });
    })();
    </script>
    """

  /// Adds the script to every `index.html` under `site`; returns how many pages it changed. A page that
  /// already has it is left alone; one without a `</head>` is an error (DocC wrote something unexpected).
  @discardableResult
  static func apply(toPagesIn site: URL) throws(SiteError) -> Int {
    guard let pages = FileManager.default.enumerator(at: site, includingPropertiesForKeys: nil) else {
      throw SiteError(site.path, "cannot list the rendered site's files")
    }
    var changed = 0
    for case let page as URL in pages where page.lastPathComponent == "index.html" {
      let html: String
      do {
        html = try String(contentsOf: page, encoding: .utf8)
      } catch {
        throw SiteError(page.path, "cannot read the page: \(error.localizedDescription)")
      }
      guard let styled = styled(html) else {
        throw SiteError(page.path, "DocC's page has no </head> to add the site's script before")
      }
      guard styled != html else { continue }
      do {
        try styled.write(to: page, atomically: true, encoding: .utf8)
      } catch {
        throw SiteError(page.path, "cannot write the page: \(error.localizedDescription)")
      }
      changed += 1
    }
    return changed
  }

  /// `html` with the script before its `</head>` (unchanged when it has it), or nil without a `</head>`.
  static func styled(_ html: String) -> String? {
    if html.contains(marker) { return html }
    guard let head = html.range(of: "</head>") else { return nil }
    return html.replacingCharacters(in: head, with: element + "</head>")
  }
}
