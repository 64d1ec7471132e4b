import Foundation
import Lineup

/// Why a guide could not be read, stored or queried: a code, a message for the person running
/// the box, and where it happened (a file or URL, and a line when the XML parser knows it).
///
/// `description` is `WHERE:LINE: message`, like the lineup's errors.
public struct GuideError: DomainFailure, Hashable {
    public enum Code: String, Sendable, Hashable {
        /// The file or URL could not be opened or downloaded.
        case unreadable
        /// The gzip stream is damaged or ends early.
        case badCompression
        /// The XML is not well-formed, or is not an XMLTV document.
        case badXML
        /// The SQLite store could not be opened, written or read.
        case storage
        /// A refresh is already running.
        case busy
        /// The lineup names no guide.
        case noSource
    }

    public var code: Code
    public var message: String
    /// The file path or URL concerned, if any.
    public var source: String?
    /// 1-based line in the (decompressed) XML; 0 when unknown.
    public var line: Int

    public init(_ code: Code, _ message: String, source: String? = nil, line: Int = 0) {
        self.code = code
        self.message = message
        self.source = source
        self.line = line
    }

    public var kind: FailureKind {
        switch code {
        case .unreadable, .badCompression, .badXML: .upstream
        case .storage: .internalFailure
        case .busy: .conflict
        case .noSource: .notFound
        }
    }

    public var description: String {
        guard let source else { return message }
        return line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)"
    }
}
