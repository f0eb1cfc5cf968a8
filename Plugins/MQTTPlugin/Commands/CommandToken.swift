/// The shared secret every MQTT write request carries as `token`
/// (`mqtt.commands.token_file`): compared in time that does not depend on
/// where the given token differs, so a guess learns nothing from the clock.
struct CommandToken: Sendable {
    /// The shortest token the config accepts.
    static let minimumLength = 16

    private let bytes: [UInt8]

    init(_ token: String) { bytes = Array(token.utf8) }

    /// Whether `given` is the token.
    func accepts(_ given: String) -> Bool {
        let other = Array(given.utf8)
        var difference = UInt8(truncatingIfNeeded: bytes.count ^ other.count)
        for index in 0..<max(bytes.count, other.count) {
            difference |= (index < bytes.count ? bytes[index] : 0) ^ (index < other.count ? other[index] : 0xff)
        }
        return difference == 0 && bytes.count == other.count
    }
}
