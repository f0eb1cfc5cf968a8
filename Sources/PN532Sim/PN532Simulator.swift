import Foundation
import TagKit

/// A PN532 on a pseudo-terminal that libnfc's `pn532_uart` driver opens like a
/// real reader (`connstring`), holding in-memory tags that tests and the
/// control socket place and remove at run time. Thread-safe; `close()` (or
/// releasing the last reference) hangs up the terminal.
///
/// ```swift
/// let sim = try PN532Simulator(pacing: .none)
/// sim.place(try Type2Tag(variant: .ntag215, uid: uid, dataArea: area))
/// // LIBNFC_DEVICE=\(sim.connstring) nfc-list
/// sim.removeAll()
/// sim.close()
/// ```
public final class PN532Simulator: Sendable {
    /// The device side of the pseudo-terminal, e.g. `/dev/pts/7`.
    public let devicePath: String
    /// What libnfc opens: `pn532_uart:/dev/pts/7`.
    public var connstring: String { "pn532_uart:" + devicePath }
    /// The pacing the simulator was started with.
    public let pacing: Pacing

    private let engine: SimulatorEngine

    public init(pacing: Pacing = .uart115200) throws(PN532SimulatorError) {
        let terminal = try PseudoTerminal()
        engine = try SimulatorEngine(terminal: terminal, pacing: pacing)
        devicePath = terminal.devicePath
        self.pacing = pacing
        let engine = engine
        let thread = Thread { engine.run() }
        thread.name = "PN532Simulator \(terminal.devicePath)"
        thread.start()
    }

    deinit { engine.stop() }

    /// Puts `tag` in the field (replacing a tag with the same UID).
    public func place(_ tag: any SimulatedTag) {
        place([tag])
    }

    /// Puts several tags in the field at the same instant: a poll sees all of them.
    public func place(_ tags: [any SimulatedTag]) {
        engine.withField { field in
            for tag in tags { field.place(tag) }
        }
    }

    /// Takes the tag with `uid` out of the field; false when it was not there.
    @discardableResult
    public func remove(uid: [UInt8]) -> Bool {
        engine.withField { $0.remove(uid: uid) }
    }

    /// Empties the field.
    public func removeAll() {
        engine.withField { $0.removeAll() }
    }

    /// Empties the field and puts `tags` in it, in one step (a tag swapped for another).
    public func replaceAll(with tags: [any SimulatedTag]) {
        engine.withField { field in
            field.removeAll()
            for tag in tags { field.place(tag) }
        }
    }

    /// The tags in the field now, with everything written to them.
    public var tags: [any SimulatedTag] {
        engine.state.withLock { $0.field.entries.map(\.tag) }
    }

    /// The tag with `uid`, if it is in the field.
    public func tag(uid: [UInt8]) -> (any SimulatedTag)? {
        tags.first { $0.activation.uid == uid }
    }

    /// What the simulator has received and answered so far.
    public var counters: PN532Counters {
        engine.state.withLock { $0.counters }
    }

    /// Hangs up: the host's next read or write fails as if the reader were unplugged.
    public func close() {
        engine.stop()
    }
}
