import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the preferred IMF-fixdate, and the obsolete RFC 850 and
/// asctime forms a recipient must accept. All three are read by hand: a server that sends
/// `Date: x` on every answer costs a few byte comparisons per answer, not the making of a
/// `DateFormatter` (which costs more than a request's other work together).
package enum HTTPDate {
    /// The date `text` names, or nil when it is none of the three forms.
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        let trimmed = String(text.trimmingHTTPWhitespace())
        if let date = imfFixdate(trimmed) { return date }
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= 24, bytes.count <= 33 else { return nil }
        return rfc850(bytes, now: now) ?? asctime(bytes)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, read by hand: 29 bytes in fixed places.
    package static func imfFixdate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 32, bytes[7] == 32, bytes[11] == 32, bytes[16] == 32,
            bytes[26...28].elementsEqual("GMT".utf8), let day = number(bytes, 5..<7), let month = month(bytes, 8),
            let year = number(bytes, 12..<16)
        else { return nil }
        return date(year: year, month: month, day: day, time: bytes, at: 17)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: a two-digit year more than 50 years ahead of `now` is
    /// the last such year in the past (RFC 9110 §5.6.7).
    private static func rfc850(_ bytes: [UInt8], now: Date) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), weekdays.contains(where: { bytes[..<comma].elementsEqual($0.utf8) }),
            bytes.count == comma + 24, bytes[comma + 1] == 32, bytes[comma + 4] == UInt8(ascii: "-"), bytes[comma + 8] == UInt8(ascii: "-"),
            bytes[comma + 11] == 32, bytes[comma + 20] == 32, bytes[(comma + 21)...].elementsEqual("GMT".utf8),
            let day = number(bytes, (comma + 2)..<(comma + 4)), let month = month(bytes, comma + 5),
            let twoDigits = number(bytes, (comma + 9)..<(comma + 11))
        else { return nil }
        let thisYear = Int(now.timeIntervalSince1970 / 31_556_952) + 1970
        var year = thisYear - thisYear % 100 + twoDigits
        if year > thisYear + 50 { year -= 100 }
        return date(year: year, month: month, day: day, time: bytes, at: comma + 12)
    }

    /// `Sun Nov  6 08:49:37 1994` (the day padded with a space to two places).
    private static func asctime(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 24, bytes[3] == 32, bytes[7] == 32, bytes[10] == 32, bytes[19] == 32,
            bytes[0..<3].allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "z") }), let month = month(bytes, 4),
            let day = bytes[8] == 32 ? number(bytes, 9..<10) : number(bytes, 8..<10), let year = number(bytes, 20..<24)
        else { return nil }
        return date(year: year, month: month, day: day, time: bytes, at: 11)
    }

    /// The decimal number of `bytes[range]`, digits only.
    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The month (1…12) named by the three bytes at `index`.
    private static func month(_ bytes: [UInt8], _ index: Int) -> Int? {
        months.firstIndex { bytes[index..<(index + 3)].elementsEqual($0.utf8) }.map { $0 + 1 }
    }

    /// The date of `year`, `month`, `day` and the `HH:MM:SS` at `offset` of `time`, in GMT.
    private static func date(year: Int, month: Int, day: Int, time bytes: [UInt8], at offset: Int) -> Date? {
        guard bytes[offset + 2] == UInt8(ascii: ":"), bytes[offset + 5] == UInt8(ascii: ":"), let hour = number(bytes, offset..<(offset + 2)),
            let minute = number(bytes, (offset + 3)..<(offset + 5)), let second = number(bytes, (offset + 6)..<(offset + 8)),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    package static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
