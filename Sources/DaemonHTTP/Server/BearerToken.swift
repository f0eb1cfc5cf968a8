/// A secret a request must bring, compared in constant time: the bearer token
/// `/metrics` and `/api/*` require when `metrics.token_file` is set
/// (`Authorization: Bearer <token>`), or the page's request token for naming tags.
struct BearerToken: Sendable {
    private let expected: [UInt8]

    init(_ token: String) { expected = Array(token.utf8) }

    /// True when `authorization` (the header's value) carries this token.
    func admits(_ authorization: String?) -> Bool {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return false }
        return matches(String(authorization.dropFirst(7).trimmingPrefix(" ")))
    }

    /// True when `given` is this token.
    func matches(_ given: String) -> Bool {
        let given = Array(given.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}
