import Foundation
import CLibXML2

/// A forward-only XML reader over a byte source: libxml2's `xmlTextReader` fed through
/// `xmlReaderForIO`, so only the current node is in memory, never the whole document.
///
/// The only file that calls libxml2. Not thread-safe: one thread drives a reader from start
/// to end. The network is never touched (`XML_PARSE_NONET`) and no external DTD is loaded.
final class XMLStreamReader {
    enum Node: Equatable {
        /// An element starts; `isEmpty` for `<x/>`, which has no matching `.end`.
        case start(name: String, isEmpty: Bool)
        case end(name: String)
        /// Text or CDATA inside the current element.
        case text
        /// Anything else (comments, whitespace between elements, the doctype).
        case other
    }

    /// What the C callbacks share with the reader: the input, and the first error raised.
    private final class Context {
        let input: any ByteSource
        var inputError: GuideError?
        var parseError: (message: String, line: Int)?
        init(input: any ByteSource) { self.input = input }
    }

    private let reader: xmlTextReaderPtr
    private let context: Context
    private let name: String

    /// - Parameters:
    ///   - input: read until it returns 0; its errors end the reading with that error.
    ///   - name: the file or URL, for messages.
    init(input: any ByteSource, name: String) throws(GuideError) {
        context = Context(input: input)
        self.name = name
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue)
        let opaque = Unmanaged.passUnretained(context).toOpaque()
        cxml_silence_generic_errors()
        guard let reader = xmlReaderForIO(Self.readCallback, Self.closeCallback, opaque, name, nil, options) else {
            throw GuideError(.badXML, "cannot start the XML reader", source: name)
        }
        self.reader = reader
        xmlTextReaderSetStructuredErrorHandler(reader, Self.errorCallback, opaque)
    }

    deinit { xmlFreeTextReader(reader) }

    /// Moves to the next node; nil at the end of the document.
    /// Throws the input's error, or the parser's with its line, when the document is broken.
    func next() throws(GuideError) -> Node? {
        let status = xmlTextReaderRead(reader)
        if status == 1 {
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                return .start(name: localName, isEmpty: xmlTextReaderIsEmptyElement(reader) == 1)
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                return .end(name: localName)
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                return .text
            default:
                return .other
            }
        }
        if let error = context.inputError { throw error }
        if let error = context.parseError {
            if error.message.contains("huge text node") {
                throw GuideError(.badXML, "a text (a description?) is longer than 10 MB, more than the XML reader takes", source: name, line: error.line)
            }
            throw GuideError(.badXML, "the XML is broken: \(error.message)", source: name, line: error.line)
        }
        if status == 0 { return nil }
        throw GuideError(.badXML, "the XML is broken", source: name, line: line)
    }

    /// The line of the current node (1-based), else the line the parser has reached.
    var line: Int {
        if let node = xmlTextReaderCurrentNode(reader) {
            let line = Int(xmlGetLineNo(node))
            if line > 0 { return line }
        }
        return Int(xmlTextReaderGetParserLineNumber(reader))
    }

    /// The text of the current `.text` node, at most `limit` bytes of it (cut at a character),
    /// and whether it was cut. Only the part kept is copied, however long the node.
    func value(limit: Int) -> (text: String, cut: Bool) {
        guard let text = xmlTextReaderConstValue(reader) else { return ("", false) }
        guard limit > 0 else { return ("", text[0] != 0) }
        let length = strnlen(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self), limit + 1)
        var kept = min(length, limit)
        // Never end inside a UTF-8 sequence: back off over continuation bytes and the lead byte.
        if length > limit {
            while kept > 0, text[kept] & 0xC0 == 0x80 { kept -= 1 }
        }
        return (String(decoding: UnsafeBufferPointer(start: text, count: kept), as: UTF8.self), length > limit)
    }

    /// The attributes of the current element, by name.
    func attributes() -> [String: String] {
        var result: [String: String] = [:]
        guard xmlTextReaderHasAttributes(reader) == 1, xmlTextReaderMoveToFirstAttribute(reader) == 1 else { return result }
        repeat {
            if let key = xmlTextReaderConstLocalName(reader) {
                result[String(cString: key)] = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
            }
        } while xmlTextReaderMoveToNextAttribute(reader) == 1
        xmlTextReaderMoveToElement(reader)
        return result
    }

    private var localName: String {
        guard let text = xmlTextReaderConstLocalName(reader) else { return "" }
        return String(cString: text)
    }

    // MARK: C callbacks (capture-free; the context is passed as user data)

    /// `xmlInputReadCallback`: fills libxml2's buffer from the byte source; -1 on error.
    private static let readCallback: xmlInputReadCallback = { opaque, buffer, length in
        guard let opaque, let buffer, length > 0 else { return 0 }
        let context = Unmanaged<Context>.fromOpaque(opaque).takeUnretainedValue()
        do throws(GuideError) {
            return Int32(try context.input.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(length))))
        } catch {
            context.inputError = error
            return -1
        }
    }

    /// `xmlInputCloseCallback`: the byte source is closed when the context is released.
    private static let closeCallback: xmlInputCloseCallback = { _ in 0 }

    /// `xmlStructuredErrorFunc`: keeps the first error (warnings are ignored).
    private static let errorCallback: xmlStructuredErrorFunc = { opaque, error in
        guard let opaque, let error else { return }
        let context = Unmanaged<Context>.fromOpaque(opaque).takeUnretainedValue()
        guard context.parseError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
        context.parseError = (message.trimmingCharacters(in: .whitespacesAndNewlines), Int(error.pointee.line))
    }
}
