/// One HTTP request as the webhook sends it.
struct HTTPRequest: Sendable {
    var url: String
    /// `url` as messages show it: `{{env.…}}` values and `user:password@` masked.
    var displayURL: String
    var method: String
    /// In order; names as written.
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var timeout: Duration
    /// False only for an explicit `insecure: true`.
    var verifyTLS: Bool = true
}

/// What the server answered.
struct HTTPResponse: Sendable {
    var status: Int
    /// Names in lowercase, in the order received.
    var headers: [(name: String, value: String)]
    /// The start of the body (at most `HTTPResponse.bodyLimit` bytes), for log lines.
    var body: [UInt8]

    static let bodyLimit = 4096

    /// The last value of header `name` (any case).
    func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.last { $0.name == lowered }?.value
    }
}

/// The request did not get an HTTP answer.
struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        /// No answer within the timeout.
        case timedOut
        /// DNS, refused, reset, TLS: the server could not be reached or talked to.
        case connection
        /// The request itself is wrong (bad URL, unsupported scheme): retrying will not help.
        case invalidRequest
        /// The waiting task was cancelled (shutdown) and the transfer stopped: send it again later.
        case cancelled
    }

    var kind: Kind
    var message: String

    var description: String { message }
}
