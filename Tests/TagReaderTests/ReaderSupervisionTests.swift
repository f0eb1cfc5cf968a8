import Foundation
import Lifecycle
import NDEF
import PN532Sim
import TagCore
import TagKit
import Testing

@testable import TagReader

/// Readers that come, go and fail: the supervisor keeps the stream alive and
/// says what happened.
@Suite(.serialized) struct ReaderSupervisionTests {
    /// A symlink in a fresh directory, standing for a device path that can point at
    /// one simulator, then nothing, then another (a USB reader unplugged and replugged).
    struct DeviceLink {
        let path: String

        init() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("pn532").path
        }

        var connstring: String { "pn532_uart:" + path }

        func point(at sim: PN532Simulator) throws {
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: sim.devicePath)
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
        }
    }

    @Test func aClosedPtyIsReportedAndTheReaderReopensWhenItReturns() async throws {
        let link = try DeviceLink()
        defer { link.remove() }
        let first = try PN532Simulator(pacing: .none)
        try link.point(at: first)
        let supervisor = ReaderSupervisor(readers: [ReaderLoopTests.config(link.connstring)], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 1)
        first.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidA, [.uri("https://example.com/a")]))
        try await log.wait(for: 2)
        first.close()
        try await log.wait(for: 4)
        let second = try PN532Simulator(pacing: .none)
        defer { second.close() }
        try link.point(at: second)
        try await log.wait(for: 5)
        second.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidB, [.uri("https://example.com/b")]))
        #expect(try await log.kinds(6) == [
            "reader.connected", "tag.arrived 04a224b2c35e80",
            "tag.removed 04a224b2c35e80", "reader.disconnected",
            "reader.connected", "tag.arrived 04112233445566",
        ])
        // Which libnfc error comes first depends on timing (an I/O error, or a
        // timeout while the simulator shuts down); the event always says which.
        #expect(log.events[3].message?.isEmpty == false)
    }

    @Test func aReaderMissingAtStartIsWaitedFor() async throws {
        let link = try DeviceLink()
        defer { link.remove() }
        let supervisor = ReaderSupervisor(readers: [ReaderLoopTests.config(link.connstring)], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        // Said once, with why, while the device is not there (`status` shows the reader `waiting`).
        let deadline = ContinuousClock.now + .seconds(20)
        while log.waits.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(log.waits.map(\.message) == ["reader '\(link.connstring)' not found"])
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        sim.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidA, [.uri("https://example.com/a")]))
        try link.point(at: sim)
        #expect(try await log.kinds(2) == ["reader.connected", "tag.arrived 04a224b2c35e80"])
        #expect(log.waits.count == 1)
    }

    @Test func severalReadersMergeIntoOneStream() async throws {
        let left = try PN532Simulator(pacing: .none)
        let right = try PN532Simulator(pacing: .none)
        defer {
            left.close()
            right.close()
        }
        var leftConfig = ReaderLoopTests.config(left.connstring)
        leftConfig.name = "left"
        var rightConfig = ReaderLoopTests.config(right.connstring)
        rightConfig.name = "right"
        let supervisor = ReaderSupervisor(readers: [leftConfig, rightConfig], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 2)
        left.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidA, [.uri("https://example.com/a")]))
        right.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidB, [.uri("https://example.com/b")]))
        let arrivals = try await log.wait(for: 4).filter { $0.kind == .tagArrived }
        #expect(Set(arrivals.map { "\($0.reader) \($0.tag?.uid.hex ?? "")" }) == ["left 04a224b2c35e80", "right 04112233445566"])
        #expect(Set(log.events.prefix(2).map { "\($0.kind.rawValue) \($0.reader)" }) == ["reader.connected left", "reader.connected right"])
    }

    @Test func stoppingEndsTheStream() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let supervisor = ReaderSupervisor(readers: [ReaderLoopTests.config(sim.connstring)], drivers: .underTest)
        var iterator = supervisor.events.makeAsyncIterator()
        #expect(await iterator.next()?.kind == .readerConnected)
        supervisor.stop()
        #expect(await iterator.next() == nil)
    }
}

extension ReaderSupervisionTests {
    /// When the link freezes: at once, wherever the reader is (most likely waiting for
    /// InAutoPoll's answer, which `nfc_abort_command` reaches); or right after the
    /// reader's next command, before the chip's ACK — libnfc waits for that ACK with no
    /// timeout and deaf to the abort, and the reader stayed stuck until its link was cut.
    enum Freeze: String, CaseIterable, CustomTestStringConvertible {
        case now, afterNextCommand
        var testDescription: String { rawValue }
    }

    @Test(arguments: Freeze.allCases)
    func theWatchdogReopensAReaderThatStopsAnswering(freeze: Freeze) async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let link = try FreezableLink(to: sim.devicePath)
        defer { link.close() }
        var config = ReaderLoopTests.config("pn532_uart:" + link.devicePath)
        config.watchdog = .seconds(1)
        let supervisor = ReaderSupervisor(readers: [config], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 1)
        switch freeze {
        case .now: link.freeze()
        case .afterNextCommand: link.freezeAfterNextCommand()
        }
        try await log.wait(for: 2)
        link.thaw()
        sim.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidA, [.uri("https://example.com/a")]))
        #expect(try await log.kinds(4) == ["reader.connected", "reader.disconnected", "reader.connected", "tag.arrived 04a224b2c35e80"])
        #expect(log.events[1].message == "watchdog: no answer for 1.0 seconds")
    }
}

extension ReaderSupervisionTests {
    @Test func aGarbledFrameIsRetriedInPlace() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let link = try FreezableLink(to: sim.devicePath)
        defer { link.close() }
        let supervisor = ReaderSupervisor(readers: [ReaderLoopTests.config("pn532_uart:" + link.devicePath)], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 1)
        link.garbleNextAnswer()
        sim.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidA, [.uri("https://example.com/a")]))
        let events = try await log.wait(for: 2)
        #expect(EventLog.summary(events) == ["reader.connected", "tag.arrived 04a224b2c35e80"])
        #expect(events[1].uri == "https://example.com/a")
        // The garbled answer was dropped and the poll asked again on the same device.
        #expect(sim.counters.commands["InAutoPoll"] == 2)
    }

    /// A host too busy to read the chip's ACK within libnfc's timeout (seen under load):
    /// the late ACK and answer then arrive while the chip is being re-initialised, and
    /// the first try fails on them. The reader stays on its device and reads the tag.
    @Test func anAnswerThatComesTooLateIsRetriedInPlace() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let link = try FreezableLink(to: sim.devicePath)
        defer { link.close() }
        var config = ReaderLoopTests.config("pn532_uart:" + link.devicePath)
        // InListPassiveTarget has a timeout in libnfc (InAutoPoll waits for its ACK as long as it takes).
        config.polling = .listPassive
        let supervisor = ReaderSupervisor(readers: [config], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 1)
        // Past libnfc's 300 ms for InListPassiveTarget, and its ACK wait.
        link.delayNextAnswer(by: .milliseconds(600))
        sim.place(try ReaderLoopTests.ntag215(ReaderLoopTests.uidA, [.uri("https://example.com/a")]))
        let events = try await log.wait(for: 2)
        #expect(EventLog.summary(events) == ["reader.connected", "tag.arrived 04a224b2c35e80"])
    }
}

extension ReaderSupervisionTests {
    /// What the systemd watchdog asks of a running reader thread: how long it has been
    /// silent, and how long it may be; a stopped service no longer answers for it.
    @Test func aRunningReaderThreadReportsItsProgress() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        var config = ReaderLoopTests.config(sim.connstring)
        config.watchdog = .seconds(3)
        let monitor = ProgressMonitor()
        let (events, continuation) = AsyncStream.makeStream(of: TagEvent.self)
        let service = ReaderService(readers: [config], drivers: .underTest, monitor: monitor) { continuation.yield($0) }
        try await service.whileRunning {
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next()?.kind == .readerConnected)
            let report = try #require(monitor.reports.first)
            #expect(report.part == "reader desk")
            #expect(report.allowance == .seconds(10), "its watchdog, a check, the longest reopen pause, a second to spare")
            #expect(monitor.stalled.isEmpty)
        }
        #expect(monitor.reports.isEmpty, "a stopped service unregisters its threads")
    }
}
