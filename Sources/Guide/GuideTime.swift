import Foundation

/// ISO 8601 times as the command line and the API take them: `2026-11-22T20:15:00+01:00`,
/// `…Z`, with or without fractions of a second.
public enum GuideTime {
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
