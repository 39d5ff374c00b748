/// The frame every report page shares: the document head (character set, viewport, a content-security policy that
/// forbids the page to load anything from the network, the style sheet) and the body around the content.
public enum PageFrame {
    /// Pages embed their pictures as `data:` URIs and their style and script inline. The policy makes the browser
    /// itself refuse anything else, so a page that renders here renders the same offline or from a mail.
    /// `media` is the source allowed for `<video>` (the labeling page's relative movie files), if any.
    static func contentSecurityPolicy(allowsMedia: Bool) -> String {
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
            + (allowsMedia ? "; media-src *" : "")
    }

    /// The start of every page's body: the title and the lines under it (what, when, by which version).
    public static func header(title: String, subtitle: [String]) -> HTMLWriter {
        var body = HTMLWriter()
        body.open("header", [("class", "page")])
        body.element("h1", [], title)
        for line in subtitle { body.element("p", [], line) }
        body.close("header")
        return body
    }

    /// A complete HTML document.
    public static func document(title: String, body: String, script: String? = nil, allowsMedia: Bool = false) -> String {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(Markup.escape(contentSecurityPolicy(allowsMedia: allowsMedia)))\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta name=\"generator\" content=\"Workbench\">\n"
        // Without an icon, browsers ask the page's origin for /favicon.ico.
        html += "<link rel=\"icon\" href=\"data:,\">\n"
        html += "<title>\(Markup.text(title))</title>\n<style>\n\(style)</style>\n</head>\n<body>\n"
        html += body
        if let script { html += "\n<script>\n\(script)</script>\n" }
        html += "\n</body>\n</html>\n"
        return html
    }

    /// One style sheet for all pages: system fonts, readable line length, cards for pictures, charts that shrink
    /// with the window. Colours meet WCAG AA contrast on white.
    static let style = """
        :root { color-scheme: light; --ink: #1f2328; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa; --accent: #0072b2; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
        header.page { padding: 20px 32px 12px; border-bottom: 1px solid var(--line); background: var(--panel); }
        header.page h1 { margin: 0 0 4px; font-size: 24px; }
        header.page p { margin: 2px 0; color: var(--muted); }
        nav.sections { padding: 8px 32px; border-bottom: 1px solid var(--line); font-size: 14px; }
        nav.sections a { margin-right: 16px; color: var(--accent); text-decoration: none; }
        main { padding: 8px 32px 48px; max-width: 1320px; }
        section { margin-top: 28px; }
        h2 { font-size: 19px; margin: 0 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
        h3 { font-size: 16px; margin: 16px 0 8px; }
        p.explain { color: var(--muted); margin: 4px 0 12px; max-width: 80ch; }
        table { border-collapse: collapse; margin: 6px 0 12px; font-size: 14px; }
        caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
        th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
        thead th { border-bottom: 2px solid var(--ink); }
        td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
        .headline { font-size: 17px; margin: 8px 0; }
        .headline strong { font-size: 22px; }
        .row { display: flex; flex-wrap: wrap; gap: 28px; align-items: flex-start; }
        .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 20px; }
        figure { margin: 0; }
        figcaption { color: var(--muted); font-size: 13px; max-width: 70ch; }
        svg.chart { max-width: 100%; height: auto; font-size: 12px; font-family: inherit; }
        svg .chart-title { font-size: 14px; }
        svg .tick, svg .legend { font-size: 12px; fill: #333; }
        svg .axis-title { font-size: 13px; fill: #222; }
        svg .note { font-size: 11px; fill: #444; }
        svg .cell { font-size: 12px; }
        ul.warnings { padding-left: 20px; }
        ul.warnings li { margin: 6px 0; }
        .warning-mark { color: #b35900; font-weight: 700; }
        .gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(148px, 1fr)); gap: 12px; margin: 8px 0; }
        .card { border: 1px solid var(--line); border-radius: 6px; padding: 6px; background: #fff; font-size: 12.5px; overflow-wrap: anywhere; }
        .card .frame { position: relative; width: 100%; aspect-ratio: 1 / 1; background: var(--panel); border-radius: 4px; overflow: hidden; }
        .card .frame img { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; }
        .card .frame img.overlay { image-rendering: auto; transition: opacity 0.15s; }
        .card:hover .frame img.overlay { opacity: 0; }
        .card .file { font-weight: 600; margin-top: 4px; }
        .detections { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 14px; margin: 8px 0; }
        .detections .card .file, .detections .card .truth, .detections .card .predicted { display: block; }
        .boxed { position: relative; display: block; width: 100%; background: var(--panel); border-radius: 4px; overflow: hidden; }
        .boxed img, .boxed svg.boxes { position: absolute; inset: 0; width: 100%; height: 100%; }
        .card .truth { color: #1a7f37; }
        .card .predicted { color: #b3261e; }
        .card .missing { display: flex; align-items: center; justify-content: center; height: 100%; color: var(--muted); padding: 6px; text-align: center; }
        .toggle { font-size: 14px; margin: 4px 0 8px; display: inline-block; }
        #show-overlays:not(:checked) ~ .gallery img.overlay { display: none; }
        .pairs { display: flex; flex-wrap: wrap; gap: 12px; margin: 6px 0; }
        .pair { display: flex; gap: 6px; border: 1px dashed var(--line); padding: 6px; border-radius: 6px; }
        .pair .card { width: 140px; }
        details { margin: 8px 0; }
        summary { cursor: pointer; color: var(--accent); }
        .more { color: var(--muted); font-style: italic; }
        .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin-right: 4px; border: 1px solid #0003; }
        .legend-row { display: flex; flex-wrap: wrap; gap: 14px; font-size: 13px; margin: 6px 0; }
        .player { display: grid; grid-template-columns: minmax(320px, 640px) 1fr; gap: 20px; align-items: start; }
        .player video { width: 100%; background: #000; border-radius: 6px; }
        .now { font-size: 20px; font-weight: 700; margin: 4px 0; }
        .next { font-size: 15px; color: var(--muted); min-height: 1.5em; }
        .next.soon { color: #b35900; font-weight: 600; }
        svg.timeline { width: 100%; height: auto; cursor: pointer; }
        .changes { display: grid; grid-template-columns: repeat(auto-fill, minmax(112px, 1fr)); gap: 8px; }
        .changes .card { font-size: 12px; }
        .changes .card button { all: unset; cursor: pointer; display: block; width: 100%; }
        .changes .card .frame, .changes .card .file, .changes .card .time { display: block; }
        """
}
