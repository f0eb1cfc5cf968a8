import FoundationEssentials

/// The `time` of an event: ISO 8601 in UTC with milliseconds,
/// `2026-11-29T15:42:52.123Z`, written from the epoch with integer arithmetic
/// (`Date.ISO8601FormatStyle` took most of the time of turning an event into JSON).
enum EventTime {
    /// The date, truncated to the millisecond (after rounding to the microsecond, so
    /// a time read from `…52.123Z` is not written back as `…52.122Z`).
    static func format(_ date: Date) -> String {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (milliseconds, _) = floorDivision(microseconds, 1000)
        let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let secondOfDay = millisecondOfDay / 1000
        return String(unsafeUninitializedCapacity: 27) { buffer in
            var position = 0
            func put(_ value: Int64, digits: Int) {
                var value = value
                for offset in stride(from: digits - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                position += digits
            }
            func put(_ character: Unicode.Scalar) {
                buffer[position] = UInt8(ascii: character)
                position += 1
            }
            if year < 0 || year > 9999 {
                put(year < 0 ? "-" : "+")
                put(abs(year), digits: 6)
            } else {
                put(year, digits: 4)
            }
            put("-"); put(month, digits: 2); put("-"); put(day, digits: 2)
            put("T"); put(secondOfDay / 3600, digits: 2); put(":"); put(secondOfDay / 60 % 60, digits: 2)
            put(":"); put(secondOfDay % 60, digits: 2); put("."); put(millisecondOfDay % 1000, digits: 3); put("Z")
            return position
        }
    }

    /// Reads `format`'s own form quickly, any other ISO 8601 date-time (with or
    /// without fractional seconds, any offset) through Foundation.
    static func parse(_ text: String) -> Date? {
        if let date = parseUTCMilliseconds(text) { return date }
        return (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` exactly, nil for anything else.
    private static func parseUTCMilliseconds(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, Unicode.Scalar)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")]
        guard separators.allSatisfy({ bytes[$0.0] == UInt8(ascii: $0.1) }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let millisecond = number(20..<23),
            (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let milliseconds = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// Year, month, day of a day count from 1970-01-01 in the proleptic Gregorian
    /// calendar (Howard Hinnant's `civil_from_days`).
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (era, _) = floorDivision(days + 719_468, 146_097)
        let dayOfEra = days + 719_468 - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The inverse of `civilDate` (Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let (era, _) = floorDivision(year, 400)
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
