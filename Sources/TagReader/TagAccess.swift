import SystemKit
import TagCore
import TagKit

/// Why `TagAccess.withTag` could not reach a tag.
public enum TagAccessError: Error, Sendable, CustomStringConvertible {
    /// The device did not open (missing, no permission).
    case noReader(device: String)
    /// Another process holds the device (`device … is in use by pid N`).
    case busy(String)
    /// No tag came into the field in time.
    case noTag(device: String, timeout: Duration)
    /// The tag is of a kind tagrouter cannot read or write.
    case unsupported(type: String)
    /// The device, or the service in front of it, failed on the way; the message
    /// says so in the driver's words (`reader failed: …`, `PC/SC: …`).
    case failed(String)

    public var description: String {
        switch self {
        case .noReader(let device): return "could not open the reader '\(device)'; `tagrouter devices` says why"
        case .busy(let message): return message
        case .noTag(let device, let timeout): return "no tag arrived on '\(device)' within \(timeout / .seconds(1)) s"
        case .unsupported(let type): return "tagrouter cannot write \(type) tags"
        case .failed(let message): return message
        }
    }
}

/// One-shot access to a tag for `tagrouter write` and tools: open a reader, wait
/// for a tag (one already lying there counts), identify it, and hand its identity
/// and the TagKit driver for its type to a body that runs on a dedicated thread,
/// where blocking library calls belong. The reader's driver does the reaching
/// (`ReaderDriver.reachTag`).
public enum TagAccess {
    /// Runs `body` with the first (identified) tag to arrive on `device` within `timeout`.
    /// A device another process holds fails at once (`ifBusy: .exit`) or is waited
    /// for within the same `timeout`. `body`'s own errors come back unchanged;
    /// reaching the tag fails with `TagAccessError`.
    public static func withTag<T: Sendable>(
        device: String, drivers: ReaderDrivers, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy = .exit,
        _ body: @escaping @Sendable (_ tag: TagInfo, _ driver: any NDEFTagDriver) throws -> T
    ) async throws -> T {
        let driver = drivers.driver(for: device)
        return try await withCheckedThrowingContinuation { continuation in
            DedicatedThread.start(name: "tag access \(device)") {
                continuation.resume(with: Result { try driver.reachTag(device: device, timeout: timeout, ifBusy: ifBusy, body) })
            }
        }
    }
}
