/// Dates as text in Molt's JSON: `2024-05-01T12:00:00Z` or `2024-05-01T12:00:00.250Z` (UTC),
/// used whenever that text reads back to exactly the stored seconds; otherwise the stored
/// seconds since 2001-01-01 are written as a number. Computed with integer calendar
/// arithmetic (proleptic Gregorian), not with locale-dependent formatters.
package enum ISODate {
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let referenceOffset: Int64 = 978_307_200

    /// The text for `seconds` after 2001-01-01, when it round-trips exactly.
    package static func format(secondsSinceReference seconds: Double) -> String? {
        guard seconds.isFinite else { return nil }
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds / 1000 == seconds, abs(milliseconds) < 9e15 else { return nil }
        let totalMilliseconds = Int64(milliseconds) + referenceOffset * 1000
        var unixSeconds = totalMilliseconds / 1000
        var fraction = totalMilliseconds % 1000
        if fraction < 0 {
            fraction += 1000
            unixSeconds -= 1
        }
        var days = unixSeconds / 86_400
        var secondOfDay = unixSeconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = "\(String(repeating: "0", count: 4 - String(year).count))\(year)-\(two(month))-\(two(day))"
        text += "T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if fraction != 0 {
            text += "." + String(repeating: "0", count: 3 - String(fraction).count) + "\(fraction)"
        }
        return text + "Z"
    }

    /// Seconds after 2001-01-01 for `YYYY-MM-DDTHH:MM:SS[.fff]Z` (fraction of 1 to 3 digits;
    /// `+00:00` accepted for `Z`), or nil for any other text.
    package static func parse(_ text: String) -> Double? {
        var rest = Substring(text)
        if rest.hasSuffix("+00:00") {
            rest = rest.dropLast(6)
        } else if rest.hasSuffix("Z") {
            rest = rest.dropLast()
        } else {
            return nil
        }
        let bytes = Array(rest.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var milliseconds: Int64 = 0
        if bytes.count > 19 {
            guard bytes[19] == UInt8(ascii: "."), (21...22).contains(bytes.count) || bytes.count == 23,
                let fraction = number(20..<bytes.count)
            else { return nil }
            milliseconds = fraction * [100, 10, 1][bytes.count - 21]
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let (checkYear, checkMonth, checkDay) = civil(fromDays: days)
        guard checkYear == year, checkMonth == month, checkDay == day else { return nil }  // 2023-02-30 and the like
        let unixSeconds = days * 86_400 + hour * 3600 + minute * 60 + second
        let total = (unixSeconds - referenceOffset) * 1000 + milliseconds
        return Double(total) / 1000
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day number since 1970-01-01.
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
