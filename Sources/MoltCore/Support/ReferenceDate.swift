public import Foundation

/// Core Data stores dates as seconds since 2001-01-01 00:00:00 UTC ("the reference date"),
/// the same epoch as `Date.timeIntervalSinceReferenceDate`. These helpers name that fact.
public enum ReferenceDate {
    /// Seconds between 1970-01-01 and 2001-01-01, both UTC.
    public static let secondsAfterUnixEpoch: Double = 978_307_200

    /// The date `seconds` after the reference date.
    public static func date(fromStoredSeconds seconds: Double) -> Date {
        Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// The seconds after the reference date that a store records for `date`.
    public static func storedSeconds(for date: Date) -> Double {
        date.timeIntervalSinceReferenceDate
    }
}
