/// One request as the handler sees it: what it asks for and the credentials it brings.
struct HTTPRequest: Sendable {
    var method: String
    /// The path without the query (`/metrics`).
    var path: String
    /// The `Authorization` header, when given.
    var authorization: String?
}
