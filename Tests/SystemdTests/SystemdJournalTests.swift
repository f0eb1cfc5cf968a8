import Foundation
import Systemd
import TestSupport
import Testing

/// Journal entries as journald receives them. libsystemd always writes to
/// /run/systemd/journal/socket, so `systemd-probe` runs in a mount namespace of its
/// own (`unshare -m`, root) where a folder of this test is mounted on /run/systemd.
@Suite struct SystemdJournalTests {
    /// journald's native protocol: `NAME=value\n`, or `NAME\n` + 64-bit little-endian length + bytes + `\n`.
    static func fields(_ datagram: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        var index = 0
        while index < datagram.count {
            guard let end = datagram[index...].firstIndex(where: { $0 == 0x0A || $0 == 0x3D }) else { break }
            let name = String(decoding: datagram[index..<end], as: UTF8.self)
            if datagram[end] == 0x3D {
                let valueEnd = datagram[end...].firstIndex(of: 0x0A) ?? datagram.count
                fields[name] = String(decoding: datagram[(end + 1)..<valueEnd], as: UTF8.self)
                index = valueEnd + 1
            } else {
                let length = datagram[(end + 1)..<(end + 9)].reversed().reduce(0) { $0 << 8 | Int($1) }
                fields[name] = String(decoding: datagram[(end + 9)..<(end + 9 + length)], as: UTF8.self)
                index = end + 9 + length + 1
            }
        }
        return fields
    }

    @Test func entryCarriesMessagePriorityAndStructuredFields() async throws {
        let folder = try SystemdNotifierTests.folder()
        try FileManager.default.createDirectory(atPath: folder + "/journal", withIntermediateDirectories: true)
        let journald = try DatagramListener(path: folder + "/journal/socket")
        let run = try await ToolRun(
            "/usr/bin/unshare", ["-m", "sh", "-c", "mount --bind \"$0\" /run/systemd && exec \"$1\" journal", folder, SystemdNotifierTests.probe])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("stderr is the journal: false"))
        let entries = journald.received()
        try #require(entries.count == 1)
        let fields = Self.fields(entries[0])
        #expect(fields["MESSAGE"] == "tag 04a224b2c35e80 on front-door: routes music")
        #expect(fields["PRIORITY"] == "6")
        #expect(fields["SYSLOG_IDENTIFIER"] == "tagrouter")
        #expect(fields["READER"] == "front-door")
        #expect(fields["TAG_UID"] == "04a224b2c35e80")
        #expect(fields["NOTE"] == "two\nlines")
    }

    @Test func fieldNamesAreMadeValid() {
        #expect(SystemdJournal.fieldName("tag_uid") == "TAG_UID")
        #expect(SystemdJournal.fieldName("_pid") == "PID")
        #expect(SystemdJournal.fieldName("tag.type") == "TAG_TYPE")
        #expect(SystemdJournal.fieldName("1st") == "ST")
        #expect(SystemdJournal.fieldName(String(repeating: "a", count: 80)).count == 64)
    }

    @Test func stderrIsTheJournalOnlyWhenJournalStreamNamesIt() throws {
        var info = stat()
        try #require(fstat(STDERR_FILENO, &info) == 0)
        #expect(SystemdJournal.stderrIsJournal(journalStream: "\(info.st_dev):\(info.st_ino)"))
        #expect(!SystemdJournal.stderrIsJournal(journalStream: "\(info.st_dev):\(info.st_ino + 1)"))
        #expect(!SystemdJournal.stderrIsJournal(journalStream: nil))
        #expect(!SystemdJournal.stderrIsJournal(journalStream: "garbage"))
    }
}
