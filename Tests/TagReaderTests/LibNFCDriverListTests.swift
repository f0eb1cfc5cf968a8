import Foundation
import PN532Sim
import Synchronization
import Testing

@testable import ReaderLibNFC
@testable import TagReader

/// libnfc keeps its driver list in one global that every `nfc_exit` frees (and the
/// next `nfc_init` rebuilds only when it is empty). Readers open and give up devices
/// on threads of their own: one giving up on a missing device must not make another's
/// open find no driver ("reader … not found" until the retry) or walk freed memory.
@Suite struct LibNFCDriverListTests {
    /// Runs `body` on a thread of its own (it blocks in libnfc) and returns its result.
    static func onThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    @Test func aReaderOpensWhileAnotherKeepsMissingItsDevice() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let connstring = sim.connstring
        let done = Atomic<Bool>(false)
        async let misses = Self.onThread {
            var count = 0
            while !done.load(ordering: .relaxed) {
                _ = DeviceProbe.probe("pn532_uart:/nonexistent/pn532-\(getpid())")
                count += 1
            }
            return count
        }
        let failed = await Self.onThread {
            defer { done.store(true, ordering: .relaxed) }
            return (0..<100).filter { _ in DeviceProbe.probe(connstring)?.opened != true }.count
        }
        #expect(await misses > 0)
        #expect(failed == 0, "\(failed) of 100 opens found no reader while another thread gave up on a missing one")
    }
}
