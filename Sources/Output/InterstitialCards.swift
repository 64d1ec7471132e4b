import Foundation
import GStreamer
import Lineup
import Logging

/// What a card says: the placeholders of a card template.
public struct CardFields: Sendable, Hashable {
    public var number: String
    public var name: String
    public var group: String
    /// A logo file on this box (PNG, JPEG, SVG, GIF), embedded into the card as a data URL.
    public var logoPath: String?
    /// What is on: `now.title`, `now.start`, `now.end`, `now.description`, `now.rating`,
    /// `next.title`, `next.start` (absent keys fill in empty).
    public var programmes: [String: String]
    /// What is happening, for the viewer: "Tuning…", "No picture within 8 s".
    public var status: String

    public init(number: String, name: String, group: String = "", logoPath: String? = nil,
                status: String = "", programmes: [String: String] = [:]) {
        self.number = number
        self.name = name
        self.group = group
        self.logoPath = logoPath
        self.status = status
        self.programmes = programmes
    }
}

/// Channel interstitial cards: SVG templates with `{{placeholders}}`, rendered at the output size
/// into full output frames.
///
/// Templates are `NAME.svg` files in a directory (the project's `Interstitials/`). `default`
/// is the card shown while a channel loads, `no-signal` the card of a channel that gave no
/// picture. A template that is missing or does not render falls back to `default` (then to a
/// built-in card) with one logged error per template. Rendering is blocking work done on a
/// thread of its own; rendered cards are kept (most recent 32).
public final class InterstitialCards: @unchecked Sendable {
    public static let defaultName = "default"
    public static let noSignalName = "no-signal"
    /// The card of a radio channel (no video), shown while its sound plays.
    public static let radioName = "radio"
    /// The card shown instead of locked content (parental rules).
    public static let lockName = "lock"

    public let directory: String?
    private let format: VideoFormat
    private let logger: Logger
    private let lock = NSLock()
    private var rendered: [String: Buffer] = [:]
    private var order: [String] = []
    private var renderedBytes = 0
    /// At most this much memory of rendered cards is kept (about 11 cards at 720p, 5 at 1080p),
    /// and at most `renderedCount` of them; the oldest go first.
    static let renderedBudget = 16 << 20
    static let renderedCount = 32
    private var reported: Set<String> = []

    /// The rendered cards kept, and their bytes.
    var renderedCache: (count: Int, bytes: Int) { lock.withLock { (rendered.count, renderedBytes) } }

    public init(directory: String?, format: VideoFormat, logger: Logger) {
        self.directory = directory
        self.format = format
        self.logger = logger
    }

    /// The card `template` (a name such as `news`, nil for the default) filled with `fields`,
    /// as an output frame.
    public func render(template: String?, fields: CardFields) async -> Buffer {
        // A flip is waiting for its card: before any other still picture in line.
        await StillImageExecutor.shared.perform(urgent: true) { self.renderNow(template: template, fields: fields) }
    }

    /// Blocking: renders on the calling thread.
    public func renderNow(template: String?, fields: CardFields) -> Buffer {
        var names = [template ?? Self.defaultName]
        if ![Self.defaultName, Self.noSignalName, Self.lockName].contains(names[0]) { names.append(Self.defaultName) }
        for name in names {
            guard let text = templateText(name) else { continue }
            if let frame = try? renderSVG(fill(text, fields), name: name) { return frame }
        }
        let builtIn = Self.builtInTemplate(template)
        if let frame = try? renderSVG(fill(builtIn, fields), name: "built-in") { return frame }
        // Nothing renders (no SVG decoder installed): a plain dark frame still hides the old channel.
        return (try? format.solidFrame(r: 16, g: 24, b: 48)) ?? (try! format.solidFrame(r: 0, g: 0, b: 0))
    }

    /// The template's text, or nil (reported once) when it cannot be read.
    func templateText(_ name: String) -> String? {
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }), !name.hasPrefix(".") else {
            reportOnce(name, "card template name '\(name)' is not a plain name; using the default card")
            return nil
        }
        let ownBuiltIn = [Self.defaultName, Self.noSignalName, Self.lockName].contains(name) ? Self.builtInTemplate(name) : nil
        guard let directory else { return ownBuiltIn }
        let path = (directory as NSString).appendingPathComponent("\(name).svg")
        if let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) { return text }
        if name != Self.defaultName, let ownBuiltIn { return ownBuiltIn }
        reportOnce(name, "card template \(path) cannot be read; using the default card")
        return nil
    }

    private func renderSVG(_ svg: String, name: String) throws -> Buffer {
        let key = svg
        if let hit = lock.withLock({ rendered[key] }) { return hit }
        do {
            let image = try ImageCodec.renderSVG(svg)
            let frame = try format.frame(image: image)
            lock.withLock {
                if rendered.updateValue(frame, forKey: key) == nil {
                    order.append(key)
                    renderedBytes += frame.size
                }
                while order.count > 1, renderedBytes > Self.renderedBudget || order.count > Self.renderedCount {
                    if let old = rendered.removeValue(forKey: order.removeFirst()) { renderedBytes -= old.size }
                }
            }
            return frame
        } catch {
            reportOnce(name, "card template '\(name)' does not render (\(error)); using the default card")
            throw error
        }
    }

    private func reportOnce(_ name: String, _ message: String) {
        let first = lock.withLock { reported.insert(name).inserted }
        if first { logger.error("\(message)") }
    }

    /// The template with every placeholder replaced by its escaped value; unknown placeholders
    /// become empty.
    func fill(_ template: String, _ fields: CardFields) -> String {
        let values: [String: String] = [
            "number": Self.escape(fields.number),
            "name": Self.escape(fields.name),
            "group": Self.escape(fields.group),
            "status": Self.escape(fields.status),
            "logo": Self.dataURL(forLogo: fields.logoPath),
            "width": "\(format.width)",
            "height": "\(format.height)",
        ].merging(["now.title", "now.start", "now.end", "now.description", "now.rating", "next.title", "next.start"]
            .map { ($0, Self.escape(fields.programmes[$0] ?? "")) }) { a, _ in a }
        var out = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                out += rest[open.lowerBound...]
                rest = ""
                break
            }
            let key = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            out += values[key] ?? ""
            rest = rest[close.upperBound...]
        }
        out += rest
        return out
    }

    /// Text made safe for SVG character data and attribute values.
    public static func escape(_ text: String) -> String { XMLText.escape(text) }

    /// A 1x1 transparent PNG: the logo of a channel without one.
    /// A channel without a logo: an empty (transparent) SVG, so the card shows nothing there.
    static let emptyLogo = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxIiBoZWlnaHQ9IjEiLz4="

    static func dataURL(forLogo path: String?) -> String {
        guard let path, let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return emptyLogo }
        let mime: String
        switch (path as NSString).pathExtension.lowercased() {
        case "svg": mime = "image/svg+xml"
        case "jpg", "jpeg": mime = "image/jpeg"
        case "gif": mime = "image/gif"
        case "png": mime = "image/png"
        default:
            // Guess from the first bytes; rsvg only embeds PNG, JPEG, GIF and SVG.
            let head = [UInt8](data.prefix(4))
            if head.starts(with: [0x89, 0x50, 0x4e, 0x47]) { mime = "image/png" }
            else if head.starts(with: [0xff, 0xd8]) { mime = "image/jpeg" }
            else if head.starts(with: [0x47, 0x49, 0x46]) { mime = "image/gif" }
            else { mime = "image/svg+xml" }
        }
        return "data:\(mime);base64,\(data.base64EncodedString())"
    }

    /// The built-in card for a template name: the lock and no-signal cards have their own (a
    /// locked channel must never fall back to a card that could be mistaken for tuning).
    static func builtInTemplate(_ name: String?) -> String {
        switch name {
        case noSignalName: builtInNoSignal
        case lockName: builtInLock
        default: builtIn
        }
    }

    /// Used when `Interstitials/` is missing or its default card is broken.
    static let builtIn = """
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{{width}}" height="{{height}}" viewBox="0 0 1280 720">
        <rect width="1280" height="720" fill="#101830"/>
        <image x="540" y="150" width="200" height="100" xlink:href="{{logo}}"/>
        <text x="640" y="400" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="96" fill="#ffffff">{{number}}</text>
        <text x="640" y="500" text-anchor="middle" font-family="DejaVu Sans" font-size="56" fill="#ffffff">{{name}}</text>
        <text x="640" y="640" text-anchor="middle" font-family="DejaVu Sans" font-size="28" fill="#cccccc">{{status}}</text>
        </svg>
        """

    static let builtInNoSignal = """
        <svg xmlns="http://www.w3.org/2000/svg" width="{{width}}" height="{{height}}" viewBox="0 0 1280 720">
        <rect width="1280" height="720" fill="#2b0d0d"/>
        <text x="640" y="300" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="80" fill="#ffffff">No signal</text>
        <text x="640" y="400" text-anchor="middle" font-family="DejaVu Sans" font-size="52" fill="#ffffff">{{number}}  {{name}}</text>
        <text x="640" y="480" text-anchor="middle" font-family="DejaVu Sans" font-size="28" fill="#f4a3a3">{{status}}</text>
        </svg>
        """

    static let builtInLock = """
        <svg xmlns="http://www.w3.org/2000/svg" width="{{width}}" height="{{height}}" viewBox="0 0 1280 720">
        <rect width="1280" height="720" fill="#15131f"/>
        <text x="640" y="285" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="64" fill="#ffffff">Locked</text>
        <text x="640" y="350" text-anchor="middle" font-family="DejaVu Sans" font-size="40" fill="#ffffff">{{number}}  {{name}}</text>
        <text x="640" y="400" text-anchor="middle" font-family="DejaVu Sans" font-size="30" fill="#d8d8e8">{{now.title}}</text>
        <text x="640" y="445" text-anchor="middle" font-family="DejaVu Sans" font-size="26" fill="#f0c060">{{status}}</text>
        </svg>
        """
}
