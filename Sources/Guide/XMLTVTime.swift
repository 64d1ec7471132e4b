import Foundation

/// XMLTV's times: `YYYYMMDDhhmmss ±hhmm`, where the seconds, minutes and hours may be left off
/// (`200006031633`, `20001122`) and the offset is optional (then the time is UTC, as the DTD
/// says). The offset is honoured: `20261122200000 +0100` is 19:00 UTC.
enum XMLTVTime {
    /// Seconds since 1970 UTC, or nil when the text is not such a time.
    static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var i = 0
        func digits(_ count: Int) -> Int64? {
            guard i + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for k in i..<(i + count) {
                let b = bytes[k]
                guard b >= 0x30, b <= 0x39 else { return nil }
                value = value * 10 + Int64(b - 0x30)
            }
            i += count
            return value
        }
        func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }

        guard let year = digits(4), let month = digits(2), let day = digits(2) else { return nil }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0
        if isDigit(i) { guard let h = digits(2) else { return nil }; hour = h }
        if isDigit(i) { guard let m = digits(2) else { return nil }; minute = m }
        if isDigit(i) { guard let s = digits(2) else { return nil }; second = s }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60 else { return nil }
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }

        var offset: Int64 = 0
        if i < bytes.count {
            let sign = bytes[i]
            if sign == 0x2B || sign == 0x2D {                    // + or -
                i += 1
                guard let hh = digits(2), let mm = digits(2), hh <= 14, mm <= 59 else { return nil }
                offset = (hh * 3600 + mm * 60) * (sign == 0x2D ? -1 : 1)
            } else if Array(bytes[i...]) == Array("UTC".utf8) || Array(bytes[i...]) == Array("GMT".utf8) || bytes[i...] == [0x5A] {
                i = bytes.count                                  // `UTC`, `GMT`, `Z`: no offset
            } else {
                return nil
            }
        }
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        guard i == bytes.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return days * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `YYYYMMDDhhmmss +0000` for a time, as the bench's generated guides write it.
    static func format(_ seconds: Int64, offsetMinutes: Int = 0) -> String {
        let local = seconds + Int64(offsetMinutes) * 60
        var days = local / 86_400
        var rest = local % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        // civil_from_days
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        let sign = offsetMinutes < 0 ? "-" : "+"
        let o = abs(offsetMinutes)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(y)\(two(m))\(two(d))\(two(rest / 3600))\(two(rest % 3600 / 60))\(two(rest % 60)) \(sign)\(two(Int64(o / 60)))\(two(Int64(o % 60)))"
    }
}
