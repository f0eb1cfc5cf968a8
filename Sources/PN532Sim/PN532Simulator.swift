import FoundationEssentials
import Glibc
import SystemKit
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
public final class PN532Simulator: SimulatedField {
    /// The device side of the pseudo-terminal, e.g. `/dev/pts/7`.
    public let devicePath: String
    /// What libnfc opens: `pn532_uart:/tmp/pn532sim-…`, a symlink to the terminal
    /// made for this simulator alone and removed by `close()`. A reader still
    /// retrying after the simulator closed then finds nothing, instead of the
    /// next simulator the kernel gives the same `/dev/pts/N` (seen: tests running
    /// side by side read each other's tags).
    public var connstring: String { "pn532_uart:" + linkPath }
    private let linkPath: String
    /// The pacing the simulator was started with.
    public let pacing: Pacing

    private let engine: SimulatorEngine

    public init(pacing: Pacing = .uart115200) throws(PN532SimulatorError) {
        let terminal = try PseudoTerminal()
        engine = try SimulatorEngine(terminal: terminal, pacing: pacing)
        devicePath = terminal.devicePath
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("pn532sim-\(UUID().uuidString)").path
        linkPath = symlink(terminal.devicePath, link) == 0 ? link : terminal.devicePath
        self.pacing = pacing
        let engine = engine
        DedicatedThread.start(name: "PN532Simulator \(terminal.devicePath)") { engine.run() }
    }

    deinit { close() }

    public func withField<T>(_ body: (inout RFField) -> T) -> T { engine.withField(body) }

    /// What the simulator has received and answered so far.
    public var counters: PN532Counters {
        engine.state.withLock { $0.counters }
    }

    /// Hangs up: the host's next read or write fails as if the reader were unplugged.
    public func close() {
        engine.stop()
        if linkPath != devicePath { unlink(linkPath) }
    }
}
