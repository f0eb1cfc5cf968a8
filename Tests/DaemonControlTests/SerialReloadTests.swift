import Dispatch
import Glibc
import Synchronization
import Testing

@testable import DaemonControl

/// A SIGHUP and a control client asking at once get one reload after the other, never two at the same time.
@Suite struct SerialReloadTests {
    @Test func reloadsAskedAtOnceRunOneAtATime() {
        let inside = Atomic<Int>(0)
        let mostInside = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let reload = SerialReload {
            let now = inside.add(1, ordering: .sequentiallyConsistent).newValue
            mostInside.max(now, ordering: .sequentiallyConsistent)
            usleep(500)  // a load that takes a moment, so callers arriving meanwhile would overlap
            inside.subtract(1, ordering: .sequentiallyConsistent)
            finished.add(1, ordering: .sequentiallyConsistent)
            return .reloaded(readers: 0, routes: 0, notes: [])
        }
        DispatchQueue.concurrentPerform(iterations: 64) { _ in _ = reload() }
        #expect(finished.load(ordering: .sequentiallyConsistent) == 64)
        #expect(mostInside.load(ordering: .sequentiallyConsistent) == 1)
    }
}
