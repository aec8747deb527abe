import ChildProcesses
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Every element of an XML document, in document order, with its attributes, its own text, and the
/// `data-output` of the nearest enclosing element that has one; `nil` when the document does not parse.
final class XMLElements: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        var ancestorOutput: String?
        var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []

    init?(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        guard parser.parse() else { return nil }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let inherited = open.last.flatMap { elements[$0].attributes["data-output"] ?? elements[$0].ancestorOutput }
        elements.append(Element(name: name, attributes: attributes, ancestorOutput: inherited))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let current = open.last { elements[current].text += string }
    }
}

/// html5lib's strict parser (`HTMLParser(strict=True)`), run by python3: the parse errors of a document or fragment,
/// and what the embed tests read of it.
enum HTML5Lib {
    static let available: Bool = {
        guard let python = Oracle.find("python3") else { return false }
        return (try? CapturedRun.run(python, ["-c", "import html5lib"]).status) == 0
    }()

    struct Result: Decodable {
        var errors: [String]
        /// Every element in document order: tag name (no namespace), attributes, text of a `<script>`.
        var elements: [ParsedElement]
    }

    struct ParsedElement: Decodable {
        var tag: String
        var attributes: [String: String]
        var text: String
        var parent: String
    }

    static let script = """
        import html5lib, json, sys
        text = sys.stdin.read()
        parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
        errors = []
        try:
            tree = parser.parseFragment(text) if sys.argv[1] == 'fragment' else parser.parse(text)
        except html5lib.html5parser.ParseError as e:
            errors.append(str(e))
            tree = None
        elements = []
        def walk(node, parent):
            for child in node:
                if isinstance(child.tag, str):
                    tag = child.tag.split('}')[-1]
                    elements.append({'tag': tag, 'attributes': dict(child.attrib), 'text': child.text or '', 'parent': parent})
                    walk(child, tag)
        if tree is not None:
            walk(tree, '')
        print(json.dumps({'errors': errors, 'elements': elements}))
        """

    static func check(_ html: String, fragment: Bool) throws -> Result {
        let run = try CapturedRun.run(
            Oracle.tool("python3"), ["-c", script, fragment ? "fragment" : "document"], stdin: Data(html.utf8))
        guard run.status == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: String(decoding: run.stderr, as: UTF8.self)])
        }
        return try JSONDecoder().decode(Result.self, from: run.stdout)
    }
}
