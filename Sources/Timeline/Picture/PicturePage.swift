/// A self-contained HTML page around pictures (`gifx verify --report`): no script, no external asset; the SVG
/// is inline. Every text given is escaped here; `svg` is markup made by `TimelinePicture`.
package struct PicturePage: Sendable {
    /// A heading, its lines of text, and its picture.
    package struct Section: Sendable {
        package var heading: String
        package var lines: [String]
        package var svg: String
        package init(heading: String, lines: [String], svg: String) {
            self.heading = heading; self.lines = lines; self.svg = svg
        }
    }

    package var title: String
    package var sections: [Section]

    package init(title: String, sections: [Section]) {
        self.title = title
        self.sections = sections
    }

    /// The page as HTML5 text.
    package var html: String {
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(MarkupText.escaped(title))</title>
            <style>
            body{font:14px sans-serif;margin:1.5em;color:#222}h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}
            pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap}svg{display:block;max-width:100%;height:auto}
            </style>
            </head>
            <body>
            <h1>\(MarkupText.escaped(title))</h1>

            """
        for section in sections {
            out += "<section>\n<h2>\(MarkupText.escaped(section.heading))</h2>\n"
            if !section.lines.isEmpty {
                out += "<pre>" + section.lines.map(MarkupText.escaped).joined(separator: "\n") + "</pre>\n"
            }
            out += section.svg
            out += "</section>\n"
        }
        out += "</body>\n</html>\n"
        return out
    }
}
