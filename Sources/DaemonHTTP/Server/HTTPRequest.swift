/// One request as the handler sees it: what it asks for, the credentials it brings,
/// and the headers that say where it comes from and what it carries.
struct HTTPRequest: Sendable {
    var method: String
    /// The path without the query (`/metrics`).
    var path: String
    /// The `Authorization` header, when given.
    var authorization: String?
    /// The headers of `headerNames` that were sent, by their lowercase name.
    var headers: [String: String] = [:]

    /// The headers the server reads besides `Authorization` (the handler sees no others).
    static let headerNames = ["Host", "Origin", "Content-Type", "Content-Length", "X-Tagrouter-CSRF"]

    /// The header `name` (any case), when it was sent.
    subscript(header name: String) -> String? { headers[name.lowercased()] }
}
