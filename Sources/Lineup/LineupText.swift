import Foundation

/// Turns lineup bytes into text and lines: UTF-8 only, BOM dropped, any line ending.
enum LineupText {
    /// Decodes UTF-8, dropping a leading byte order mark.
    ///
    /// Returns a human message naming the line of the first bad byte when the
    /// data is not UTF-8 (e.g. a Latin-1 playlist).
    static func decode(_ data: Data) -> Result<String, DecodingProblem> {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return .failure(DecodingProblem(line: 1, message: "the file is UTF-16 text; save it as UTF-8"))
        }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                offset += encoded.count
            case .emptyInput:
                return .success(String(decoding: bytes, as: UTF8.self))
            case .error:
                let line = 1 + bytes[..<offset].lazy.filter { $0 == 0x0A }.count
                let byte = String(bytes[offset], radix: 16, uppercase: true)
                return .failure(DecodingProblem(
                    line: line,
                    message: "the file is not UTF-8 text (byte 0x\(byte) at offset \(offset)); save it as UTF-8"))
            }
        }
    }

    struct DecodingProblem: Error {
        var line: Int
        var message: String
    }

    /// Splits on `\n`, `\r\n` or a lone `\r`; line `i` of the result is line `i + 1` of the file.
    static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }
}
