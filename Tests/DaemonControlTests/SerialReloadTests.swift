import Foundation
import Synchronization
import Testing

@testable import DaemonControl

/// A SIGHUP, a control client and the live page asking at once get one reload after the other, never two at the
/// same time, whether they await it (a task) or wait for it on a thread of their own.
@Suite struct SerialReloadTests {
    @Test func reloadsAskedAtOnceRunOneAtATime() async {
        let inside = Atomic<Int>(0)
        let mostInside = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let reload = SerialReload {
            let now = inside.add(1, ordering: .sequentiallyConsistent).newValue
            mostInside.max(now, ordering: .sequentiallyConsistent)
            // A load that waits a moment, so callers arriving meanwhile would overlap.
            try? await Task.sleep(for: .microseconds(500))
            inside.subtract(1, ordering: .sequentiallyConsistent)
            finished.add(1, ordering: .sequentiallyConsistent)
            return .reloaded(readers: 0, routes: 0, notes: [])
        }
        await withDiscardingTaskGroup { group in
            for _ in 0..<32 { group.addTask { _ = await reload() } }
            // Control sessions and the HTTP listener ask from threads of their own.
            group.addTask {
                await withCheckedContinuation { (asked: CheckedContinuation<Void, Never>) in
                    Thread {
                        DispatchQueue.concurrentPerform(iterations: 32) { _ in _ = reload.waiting() }
                        asked.resume()
                    }.start()
                }
            }
        }
        #expect(finished.load(ordering: .sequentiallyConsistent) == 64)
        #expect(mostInside.load(ordering: .sequentiallyConsistent) == 1)
    }
}
