import NDEF
import PN532Sim
import TagCore
import TagKit
import Testing

@testable import TagReader

/// Write jobs and the daemon's tag password (`tag_password_file`): the board gives it to a
/// write that brings none, and refuses `protect` at once when the daemon has none.
@Suite(.serialized) struct ProtectedJobTests {
    static let password = TagPassword(text: "0a1b2c3d5e6f")!

    static func write(protect: Bool, password: TagPassword? = nil) -> TagJob {
        let order = TagWriteOrder(message: NDEFMessage(records: [.text("mine")]).encoded(), protect: protect, password: password)
        return TagJob(.write(order), timeout: .seconds(20), takesPresent: false, origin: "test")
    }

    @Test func protectWithoutAPasswordAnywhereIsRefusedBeforeATagIsAwaited() async throws {
        let bench = try ReaderJobTests.Bench()
        defer { bench.close() }
        let answer = await bench.submit(Self.write(protect: true)).value
        #expect(answer == .refused(TagJobRefusal(.badRequest, "protecting a tag needs a password, and the daemon has none: set `tag_password_file` in its config")))
    }

    @Test func aWriteWithoutAPasswordUsesTheDaemonsAndOneWithItsOwnKeepsIt() async throws {
        let bench = try ReaderJobTests.Bench()
        defer { bench.close() }
        #expect(try await bench.log.kinds(1) == ["reader.connected"])
        bench.jobs.use(tagPassword: Self.password)
        let protect = bench.submit(Self.write(protect: true))
        bench.sim.place(try bench.tag(ReaderJobTests.uid, [.text("old")]))
        guard case .written(let report) = await protect.value else { Issue.record("not written: \(await protect.value)"); return }
        #expect(report.protected)
        let memory = try #require(bench.sim.tag(uid: ReaderJobTests.uid)?.memory)
        #expect(Array(memory[(0x85 * 4)..<(0x86 * 4 + 2)]) == [0x0A, 0x1B, 0x2C, 0x3D, 0x5E, 0x6F])

        // A job that brings its own (the control socket's password_hex) is not given the daemon's.
        let wrong = TagJob(
            .write(TagWriteOrder(message: NDEFMessage(records: [.text("x")]).encoded(), password: TagPassword(text: "ffffffff5e6f"))),
            timeout: .seconds(20), takesPresent: true, origin: "test")
        #expect(await bench.submit(wrong).value == .refused(TagJobRefusal(
            .wrongPassword, "the NTAG215 refused the password (PWD_AUTH answered NAK): it was protected with another one")))
    }
}
