/// The token `/metrics` and `/api/*` require when `metrics.token_file` is set:
/// `Authorization: Bearer <token>`, compared in constant time.
struct BearerToken: Sendable {
    private let expected: [UInt8]

    init(_ token: String) { expected = Array(token.utf8) }

    /// True when `authorization` (the header's value) carries this token.
    func admits(_ authorization: String?) -> Bool {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return false }
        let given = Array(authorization.dropFirst(7).trimmingPrefix(" ").utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}
