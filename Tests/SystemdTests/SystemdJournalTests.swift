import Foundation
import Systemd
import TestSupport
import Testing

/// Journal entries as journald receives them. libsystemd always writes to
/// /run/systemd/journal/socket, so `systemd-probe` runs in a mount namespace of its
/// own (`unshare -m`, root) where a folder of this test is mounted on /run/systemd.
@Suite struct SystemdJournalTests {
    /// One entry's fields; a repeated name keeps its last value.
    static func fields(_ datagram: [UInt8]) -> [String: String] {
        Dictionary(pairs(datagram), uniquingKeysWith: { $1 })
    }

    /// journald's native protocol: `NAME=value\n`, or `NAME\n` + 64-bit little-endian length + bytes + `\n`.
    static func pairs(_ datagram: [UInt8]) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        var index = 0
        while index < datagram.count {
            guard let end = datagram[index...].firstIndex(where: { $0 == 0x0A || $0 == 0x3D }) else { break }
            let name = String(decoding: datagram[index..<end], as: UTF8.self)
            if datagram[end] == 0x3D {
                let valueEnd = datagram[end...].firstIndex(of: 0x0A) ?? datagram.count
                fields.append((name, String(decoding: datagram[(end + 1)..<valueEnd], as: UTF8.self)))
                index = valueEnd + 1
            } else {
                let length = datagram[(end + 1)..<(end + 9)].reversed().reduce(0) { $0 << 8 | Int($1) }
                fields.append((name, String(decoding: datagram[(end + 9)..<(end + 9 + length)], as: UTF8.self)))
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

extension SystemdJournalTests {
    /// Two taps — one on front-door with a Spotify URI, one on hall with nothing — and a config with `routes`.
    static func daemonFiles(in folder: String, routes: String) throws -> (config: String, events: String) {
        let events = folder + "/events.jsonl"
        try """
            {"event":"tag.arrived","id":"e-1","reader":"front-door","tag":{"uid":"04a224b2c35e80","type":"ntag215"},"uri":"spotify:track:1"}
            {"event":"tag.arrived","id":"e-2","reader":"hall","tag":{"uid":"04112233445566","type":"ntag213"}}

            """.write(toFile: events, atomically: true, encoding: .utf8)
        let config = folder + "/tagrouter.yaml"
        try """
            state_dir: \(folder)/state
            routes:
            \(routes)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        return (config, events)
    }

    /// `tagrouter run` under systemd: stderr is the journal stream (`JOURNAL_STREAM` names it),
    /// so each log entry goes to journald with fields to filter on.
    @Test func theDaemonLogsTapsToTheJournalWithFieldsToFilterOn() async throws {
        let folder = try SystemdNotifierTests.folder()
        try FileManager.default.createDirectory(atPath: folder + "/journal", withIntermediateDirectories: true)
        let journald = try DatagramListener(path: folder + "/journal/socket")
        let (config, events) = try Self.daemonFiles(in: folder, routes: """
              - { name: music, match: { uri: "spotify:*" }, continue: true, actions: [{ log: "{{uri}}" }] }
              - { name: any-spotify, match: { uri: "spotify:*" }, actions: [{ log: "{{uri}}" }] }
            """)
        // The shell makes its stderr (a pipe to this test) the journal stream, as systemd would.
        let script = """
            mount --bind "$0" /run/systemd && JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) \
            exec "$1" run --config "$2" --events-from "$3" --control "$0/control.sock"
            """
        let run = try await ToolRun(
            "/usr/bin/unshare", ["-m", "sh", "-c", script, folder, BuiltProducts.tagrouter.path, config, events])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "every line went to the journal: \(run.stderr)")
        let datagrams = journald.received()
        let entries = datagrams.map(Self.fields)
        let taps = entries.filter { $0["MESSAGE"]?.hasPrefix("tap on ") == true }
        try #require(taps.count == 2, "\(entries)")
        #expect(taps[0]["PRIORITY"] == "6")
        #expect(taps[0]["READER"] == "front-door")
        #expect(taps[0]["TAG_UID"] == "04a224b2c35e80")
        #expect(taps[0]["EVENT_ID"] == "e-1")
        #expect(taps[0]["SYSLOG_IDENTIFIER"] == "tagrouter")
        let tapDatagram = try #require(datagrams.first { Self.fields($0)["EVENT_ID"] == "e-1" && Self.fields($0)["MESSAGE"]?.hasPrefix("tap on ") == true })
        #expect(Self.pairs(tapDatagram).filter { $0.name == "ROUTE" }.map(\.value) == ["music", "any-spotify"], "one ROUTE= per route matched")
        #expect(taps[1]["MESSAGE"] == "tap on hall: ntag213 04112233445566 → no route matched")
        #expect(taps[1]["READER"] == "hall")
        #expect(entries.contains { $0["MESSAGE"] == "router started" })
    }
}

extension SystemdJournalTests {
    /// The same, read back the way a user does: a real journald in a private mount
    /// namespace (a tmpfs on /run), then `journalctl READER=front-door` and
    /// `journalctl ACTION=…` find the tap's line and the failing action's line.
    @Test func journalctlFindsTheDaemonsLinesByReaderAndByAction() async throws {
        let folder = try SystemdNotifierTests.folder()
        let (config, events) = try Self.daemonFiles(in: folder, routes: """
              - { name: music, match: { uri: "spotify:*" }, actions: [{ shell: { command: [/bin/false], retry: { attempts: 1 }, spool: false } }] }
            """)
        let script = """
            set -e
            mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal
            /lib/systemd/systemd-journald & journald=$!
            n=0; until [ -S /run/systemd/journal/socket ]; do n=$((n+1)); [ $n -lt 400 ] || exit 3; sleep 0.05; done
            JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) "$1" run --config "$2" --events-from "$3" --control "$0/control.sock"
            journalctl --sync
            journalctl -D /run/log/journal -o json --no-pager READER=front-door > "$0/reader.json"
            journalctl -D /run/log/journal -o json --no-pager ACTION=music.0.shell > "$0/action.json"
            kill $journald; wait $journald || true
            """
        let run = try await ToolRun("/usr/bin/unshare", ["-m", "sh", "-c", script, folder, BuiltProducts.tagrouter.path, config, events])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        /// journalctl's JSON output: one object per line, each field a string.
        func entries(_ file: String) throws -> [[String: String]] {
            try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n").map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
                return object.compactMapValues { $0 as? String }
            }
        }
        let reader = try entries("reader.json")
        let tap = try #require(reader.first { $0["MESSAGE"]?.hasPrefix("tap on front-door") == true }, "\(reader)")
        #expect(tap["MESSAGE"] == "tap on front-door: ntag215 04a224b2c35e80 spotify:track:1 → music")
        #expect(tap["PRIORITY"] == "6")
        #expect(tap["TAG_UID"] == "04a224b2c35e80")
        #expect(tap["EVENT_ID"] == "e-1")
        #expect(tap["ROUTE"] == "music")
        #expect(tap["SYSLOG_IDENTIFIER"] == "tagrouter")
        #expect(!reader.contains { $0["READER"] == "hall" }, "the filter selects one reader")
        let action = try entries("action.json")
        let failure = try #require(action.first, "\(action)")
        #expect(failure["MESSAGE"]?.hasPrefix("music.0.shell: delivery failed; event not delivered: shell: /bin/false") == true, "\(failure)")
        #expect(failure["PRIORITY"] == "3")
        #expect(failure["EVENT_ID"] == "e-1")
        #expect(failure["READER"] == "front-door")
        #expect(failure["ROUTE"] == "music")
    }
}
