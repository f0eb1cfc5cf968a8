import CCurl
import FoundationEssentials

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an
/// HTTP date (parsed by libcurl's `curl_getdate`). Nil for anything else.
enum RetryAfter {
    static func delay(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingWhitespace()
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        guard case .success(let curl) = Curl.shared else { return nil }
        let time = curl.getdate(trimmed, nil)
        guard time >= 0 else { return nil }
        return .milliseconds(max(0, Int64((Double(time) - now.timeIntervalSince1970) * 1000)))
    }
}
