import Foundation
import CLibXML2

/// A forward-only XML reader over a byte source: libxml2's push parser fed 64 KB at a time,
/// its SAX events queued and handed out one by one. Nothing of the document is kept but the
/// events of the last piece, and of a text no more than `textLimit` bytes: a description of
/// hundreds of megabytes costs what its first 8 KB cost (libxml2's own reader would build each
/// text whole, and the allocator keeps what it freed).
///
/// The only file that calls libxml2. Not thread-safe: one thread drives a reader from start
/// to end. The network is never touched (`XML_PARSE_NONET`) and no external DTD is loaded.
final class XMLStreamReader {
    enum Node: Equatable {
        /// An element starts; `isEmpty` for `<x/>` (its `.end` follows at once).
        case start(name: String, attributes: [String: String], line: Int)
        case end(name: String)
        /// Text or CDATA inside the current element: at most `textLimit` bytes of one run of
        /// it (cut at a character), and whether more was cut.
        case text(String, cut: Bool)
    }

    /// What the C callbacks share with the reader: the input, the events not yet handed out,
    /// and the first error raised.
    private final class Context {
        let input: any ByteSource
        let textLimit: Int
        var events: [Node] = []
        var next = 0
        /// The text run being read: its bytes up to the limit, and whether more came.
        var text: [UInt8] = []
        var textCut = false
        var inText = false
        var inputError: GuideError?
        var parseError: (message: String, line: Int)?
        var parser: xmlParserCtxtPtr?

        init(input: any ByteSource, textLimit: Int) {
            self.input = input
            self.textLimit = textLimit
        }

        var line: Int { parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0 }

        func characters(_ bytes: UnsafePointer<xmlChar>, _ count: Int) {
            inText = true
            let room = textLimit - text.count
            if count <= room {
                text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
            } else {
                text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: max(0, room)))
                textCut = true
            }
        }

        /// Whether the newest event handed out or queued is text.
        var lastWasText = false

        /// Ends the text run, if any, as one `.text` event. A run of only whitespace between
        /// elements (the document's indentation) is no event: text before an element starts is
        /// never kept, so it could only matter after other text (a comment between the two).
        func flushText() {
            guard inText else { return }
            if !lastWasText, !textCut, text.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) {
                text.removeAll(keepingCapacity: true)
                inText = false
                return
            }
            lastWasText = true
            var kept = text.count
            // Never end inside a UTF-8 sequence: a cut that split one drops its first bytes.
            if textCut, kept > 0 {
                var lead = kept - 1
                while lead > 0, text[lead] & 0xC0 == 0x80 { lead -= 1 }
                let byte = text[lead]
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if lead + length > kept { kept = lead }
            }
            events.append(.text(text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[..<kept]), as: UTF8.self) },
                                cut: textCut))
            text.removeAll(keepingCapacity: true)
            textCut = false
            inText = false
        }
    }

    /// The most read from the input at a time.
    static let pieceSize = 64 * 1024

    private let parser: xmlParserCtxtPtr
    private let context: Context
    private let name: String
    private var piece: [UInt8]
    private var finished = false

    /// - Parameters:
    ///   - input: read until it returns 0; its errors end the reading with that error.
    ///   - name: the file or URL, for messages.
    ///   - textLimit: the most kept of one run of text, in UTF-8 bytes.
    init(input: any ByteSource, name: String, textLimit: Int) throws(GuideError) {
        context = Context(input: input, textLimit: max(0, textLimit))
        self.name = name
        piece = [UInt8](repeating: 0, count: Self.pieceSize)
        cxml_silence_generic_errors()
        var handler = xmlSAXHandler()
        xmlSAXVersion(&handler, 2)
        // libxml2's own handlers stay for the document and its DTD (entities); everything that
        // would build a tree is ours or ignored.
        handler.startElementNs = Self.startCallback
        handler.endElementNs = Self.endCallback
        handler.characters = Self.charactersCallback
        handler.cdataBlock = Self.charactersCallback
        handler.ignorableWhitespace = Self.charactersCallback
        handler.comment = nil
        handler.processingInstruction = nil
        handler.reference = nil
        handler.serror = Self.errorCallback
        handler.error = nil
        handler.warning = nil
        guard let parser = xmlCreatePushParserCtxt(&handler, nil, nil, 0, name) else {
            throw GuideError(.badXML, "cannot start the XML reader", source: name)
        }
        self.parser = parser
        context.parser = parser
        // The callbacks are given the parser; the context rides in its private pointer.
        parser.pointee._private = Unmanaged.passUnretained(context).toOpaque()
        xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue))
    }

    deinit {
        if let document = parser.pointee.myDoc { xmlFreeDoc(document) }
        parser.pointee.myDoc = nil
        xmlFreeParserCtxt(parser)
    }

    /// Moves to the next node; nil at the end of the document.
    /// Throws the input's error, or the parser's with its line, when the document is broken
    /// (after the nodes read before it).
    func next() throws(GuideError) -> Node? {
        while context.next == context.events.count {
            context.events.removeAll(keepingCapacity: true)
            context.next = 0
            if let error = context.inputError { throw error }
            if let error = context.parseError {
                throw GuideError(.badXML, "the XML is broken: \(error.message)", source: name, line: error.line)
            }
            if finished { return nil }
            try feed()
        }
        defer { context.next += 1 }
        return context.events[context.next]
    }

    /// The line the parser has reached (1-based).
    var line: Int { context.line }

    /// Reads one piece of the input into the parser (the last one ends the document).
    private func feed() throws(GuideError) {
        let input = context.input
        let read = piece.withUnsafeMutableBytes { buffer in
            Result { () throws(GuideError) -> Int in try input.read(into: buffer) }
        }
        let count = try read.get()
        let status = piece.withUnsafeBytes { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlParseChunk(parser, chars.baseAddress, Int32(count), count == 0 ? 1 : 0)
            }
        }
        if count == 0 {
            finished = true
            context.flushText()
        }
        if context.parseError == nil, status != 0 {
            context.parseError = ("error \(status)", context.line)
        }
    }

    // MARK: C callbacks (capture-free; the parser is passed as context, ours in its `_private`)

    private static func context(_ parser: UnsafeMutableRawPointer?) -> Context? {
        guard let parser, let opaque = parser.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return nil }
        return Unmanaged<Context>.fromOpaque(opaque).takeUnretainedValue()
    }

    private static func string(_ text: UnsafePointer<xmlChar>?) -> String {
        text.map { String(cString: $0) } ?? ""
    }

    private static let startCallback: startElementNsSAX2Func = { parser, localName, _, _, _, _, count, _, attributes in
        guard let context = context(parser) else { return }
        context.flushText()
        var values: [String: String] = [:]
        if let attributes, count > 0 {
            // Five pointers each: local name, prefix, URI, value, end of value (not terminated).
            for index in 0..<Int(count) {
                let base = index * 5
                guard let key = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4] else { continue }
                let value = String(decoding: UnsafeBufferPointer(start: start, count: max(0, end - start)), as: UTF8.self)
                values[string(key)] = value
            }
        }
        context.events.append(.start(name: string(localName), attributes: values, line: context.line))
        context.lastWasText = false
    }

    private static let endCallback: endElementNsSAX2Func = { parser, localName, _, _ in
        guard let context = context(parser) else { return }
        context.flushText()
        context.events.append(.end(name: string(localName)))
        context.lastWasText = false
    }

    private static let charactersCallback: charactersSAXFunc = { parser, bytes, count in
        guard let context = context(parser), let bytes, count > 0 else { return }
        context.characters(bytes, Int(count))
    }

    /// `xmlStructuredErrorFunc`: keeps the first error (warnings are ignored).
    private static let errorCallback: xmlStructuredErrorFunc = { parser, error in
        guard let context = context(parser), let error else { return }
        guard context.parseError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
        context.parseError = (message.trimmingCharacters(in: .whitespacesAndNewlines), Int(error.pointee.line))
    }
}
