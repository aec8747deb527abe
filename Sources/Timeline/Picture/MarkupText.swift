/// Text made safe to write into XML (SVG) or HTML, as element content or as a quoted attribute value: `&`, `<`,
/// `>`, `"` and `'` become character references, and the characters XML 1.0 forbids (C0 controls other than tab,
/// line feed and carriage return, U+FFFE, U+FFFF) become U+FFFD, so a file name can never end an element,
/// open one, or leave a document that does not parse.
package enum MarkupText {
    /// `text` escaped for element content or a double- or single-quoted attribute value.
    package static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out.unicodeScalars.append("\u{FFFD}")
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
