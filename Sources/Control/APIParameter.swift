import Hummingbird
import Lineup

/// The API's one reading of the values its paths and queries carry; a value that is not one is
/// a 400 that says how to write it (thrown as `HTTPError`, answered as JSON by
/// `JSONErrorMiddleware`).
enum APIParameter {
    /// The channel number in path parameter `name` (`7`, `9.1`, percent-encoded or not).
    static func channelNumber(_ context: some RequestContext, _ name: String = "number") throws(HTTPError) -> ChannelNumber {
        do { return try ChannelNumber.inPath(context.parameters.get(name)) }
        catch { throw HTTPError(.badRequest, message: error.message) }
    }

    /// `text` (a query parameter, a JSON field) as a channel number.
    static func channelNumber(_ text: String) throws(HTTPError) -> ChannelNumber {
        do { return try ChannelNumber.reading(text) } catch { throw HTTPError(.badRequest, message: error.message) }
    }

    /// The widths a still picture may be asked for.
    static var widths: ClosedRange<Int> { 16...7680 }

    /// The `width` query parameter of a snapshot or thumbnail; nil when absent.
    static func width(_ request: Request) throws(HTTPError) -> Int? {
        guard let text = request.uri.queryParameters.get("width") else { return nil }
        guard let value = Int(text), widths.contains(value) else {
            throw HTTPError(.badRequest, message: "width must be a whole number from \(widths.lowerBound) to \(widths.upperBound)")
        }
        return value
    }
}
