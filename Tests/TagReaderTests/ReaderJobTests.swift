import Foundation
import NDEF
import PN532Sim
import TagCore
import TagKit
import TagRuntime
import Testing

@testable import TagReader

/// Read and write jobs on a running reader thread (libnfc on the simulator):
/// the tag a job takes is not reported, and each way a job can end is answered.
@Suite(.serialized) struct ReaderJobTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
    static let other: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    /// A simulator, a reader on it with a job board, and its events.
    struct Bench {
        let sim: PN532Simulator
        let jobs = ReaderJobBoard()
        let supervisor: ReaderSupervisor
        let log: EventLog

        init() throws {
            sim = try PN532Simulator(pacing: .none)
            let config = ReaderConfig.testing(name: "desk", device: sim.connstring)
            jobs.configure([config])
            supervisor = ReaderSupervisor(readers: [config], drivers: .underTest, jobs: jobs)
            log = EventLog(supervisor)
        }

        func close() {
            supervisor.stop()
            sim.close()
        }

        func tag(_ uid: [UInt8], _ records: [NDEFRecord], _ type: Type2TagType = .ntag215) throws -> Type2Tag {
            try Type2Tag(type, uid: uid, message: NDEFMessage(records: records).encoded())
        }

        /// Submits `job` and returns a task that awaits its answer.
        func submit(_ job: TagJob) -> Task<TagJobResult, Never> {
            let answer = AsyncStream.makeStream(of: TagJobResult.self)
            jobs.submit(job, reader: nil) { result in
                answer.continuation.yield(result)
                answer.continuation.finish()
            }
            return Task { await answer.stream.first { _ in true } ?? .refused(TagJobRefusal(.failed, "no answer")) }
        }
    }

    static func write(_ records: [NDEFRecord], timeout: Duration = .seconds(20)) -> TagJob {
        TagJob(.write(TagWriteOrder(message: NDEFMessage(records: records).encoded())), timeout: timeout, takesPresent: false, origin: "test")
    }

    @Test func theTagAWriteTakesIsWrittenAndNeverReported() async throws {
        let bench = try Bench()
        defer { bench.close() }
        #expect(try await bench.log.kinds(1) == ["reader.connected"])
        let answer = bench.submit(Self.write([.uri("https://example.com/new")]))
        bench.sim.place(try bench.tag(Self.uid, [.text("old")]))
        guard case .written(let report) = await answer.value else { Issue.record("\(await answer.value)"); return }
        #expect(report.tag.uid == TagUID(bytes: Self.uid))
        #expect(report.records == 1)
        #expect(report.verified)
        let memory = try #require(bench.sim.tag(uid: Self.uid)?.memory)
        #expect(try NDEFMessage(bytes: Type2Memory.parse(image: memory).content.ndefMessage) == NDEFMessage(records: [.uri("https://example.com/new")]))
        // Lifted and another tag tapped: only the other tag's events are reported.
        bench.sim.removeAll()
        bench.sim.place(try bench.tag(Self.other, [.text("next")]))
        try await bench.log.wait(for: 2)
        bench.sim.removeAll()
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04112233445566", "tag.removed 04112233445566"])
    }

    @Test func aReadTakesTheTagLyingThereAndItsPresenceGoesOnAsReported() async throws {
        let bench = try Bench()
        defer { bench.close() }
        bench.sim.place(try bench.tag(Self.uid, [.text("lying")]))
        #expect(try await bench.log.kinds(2) == ["reader.connected", "tag.arrived 04a224b2c35e80"])
        let answer = bench.submit(TagJob(.read, timeout: .seconds(20), takesPresent: true, origin: "test"))
        guard case .read(let event) = await answer.value else { Issue.record("\(await answer.value)"); return }
        #expect(event.text == "lying")
        bench.sim.removeAll()
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80"])
    }

    @Test func aTagThatLeavesMidWriteIsSaidToHaveLeft() async throws {
        let bench = try Bench()
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        let answer = bench.submit(Self.write([.text(String(repeating: "new ", count: 20))]))
        bench.sim.place(try bench.tag(Self.uid, [.text("old")]), leavingAfterExchanges: 3)
        #expect(await answer.value == .refused(TagJobRefusal(
            .tagLeft, "the tag left the field before the write was done and verified; hold it still and write again")))
    }

    @Test func refusalsSayWhy() async throws {
        let bench = try Bench()
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        let tooLarge = bench.submit(Self.write([.text(String(repeating: "x", count: 600))]))
        bench.sim.place(try bench.tag(Self.uid, [.text("keep")], .ntag213))
        #expect(await tooLarge.value == .refused(TagJobRefusal(.tooLarge, "message is 610 bytes; this NTAG213 holds 142")))
        bench.sim.removeAll()

        let expired = await bench.submit(Self.write([.text("x")], timeout: .milliseconds(300))).value
        #expect(expired == .refused(TagJobRefusal(
            .noTag, "no tag was placed on reader 'desk' within 0.3 s (a tag lying there already does not count: lift it and place it again)")))

        let unknown = await withCheckedContinuation { continuation in
            bench.jobs.submit(Self.write([.text("x")]), reader: "hall") { continuation.resume(returning: $0) }
        }
        #expect(unknown == .refused(TagJobRefusal(.noReader, "no reader 'hall' runs in the daemon (its readers: 'desk')")))

        let withdrawn = Task { await bench.jobs.run(Self.write([.text("x")]), reader: "desk") }
        withdrawn.cancel()
        #expect(await withdrawn.value == .refused(TagJobRefusal(.cancelled, "the request was withdrawn before a tag came")))
        // The expired and withdrawn jobs took nothing: the next tag is reported.
        bench.sim.place(try bench.tag(Self.other, [.text("next")]))
        #expect(try await bench.log.kinds(2) == ["reader.connected", "tag.arrived 04112233445566"])
    }
}
