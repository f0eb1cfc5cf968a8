@preconcurrency import Glibc

/// Why the simulator could not start.
public struct PN532SimulatorError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ step: String) {
        description = "cannot open a pseudo-terminal for the PN532 simulator: \(step) failed: \(String(cString: strerror(errno)))"
    }
}
