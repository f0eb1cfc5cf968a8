import Synchronization

/// The parts of the daemon that must keep making progress — each reader's
/// thread — as the systemd watchdog asks about them: a running part registers a
/// report of how long it has been silent and how long it may be; the watchdog
/// is fed only while no part is silent for longer than it may be.
public final class ProgressMonitor: Sendable {
    /// One part's silence: how long since it last made progress, and how long it may go without.
    public struct Report: Sendable, Equatable {
        /// What the part is (`reader front-door`).
        public var part: String
        public var silent: Duration
        /// Longer than this and the part counts as wedged.
        public var allowance: Duration

        public init(part: String, silent: Duration, allowance: Duration) {
            self.part = part
            self.silent = silent
            self.allowance = allowance
        }

        public var isStalled: Bool { silent > allowance }
    }

    private let reporters = Mutex<(next: Int, all: [Int: @Sendable () -> [Report]])>((0, [:]))

    public init() {}

    /// Adds `report` (called on the watchdog's task: it must return at once); returns the id `unregister` takes.
    public func register(_ report: @escaping @Sendable () -> [Report]) -> Int {
        reporters.withLock { reporters in
            defer { reporters.next += 1 }
            reporters.all[reporters.next] = report
            return reporters.next
        }
    }

    /// The part has ended (a reader stopped): it is no longer asked.
    public func unregister(_ id: Int) {
        _ = reporters.withLock { $0.all.removeValue(forKey: id) }
    }

    /// Every running part's report, as of now.
    public var reports: [Report] {
        reporters.withLock { Array($0.all.values) }.flatMap { $0() }
    }

    /// The parts silent for longer than they may be.
    public var stalled: [Report] { reports.filter(\.isStalled) }
}
