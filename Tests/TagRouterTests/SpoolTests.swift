import Foundation
import OrderedJSON
import TagCore
import Testing

@testable import TagRouter

extension Spool {
    /// Every entry waiting, read back at once (a worker reads them back a few
    /// batches at a time, in turn); `recover` is called first.
    func recoverEntries() -> [Entry] { recover().flatMap { read($0, atLeast: .max).entries } }
}

@Suite struct SpoolTests {
    func directory() -> String { NSTemporaryDirectory() + "tagrouter-spool-unit-" + UUID().uuidString }

    func deliveries(_ count: Int, route: String = "r") -> [Delivery] {
        (0..<count).map { Delivery(event: tagEvent(uid: String(format: "04a224b2c3%04x", $0), uri: "https://a/\($0)"), route: route) }
    }

    func files(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    @Test func appendsInOrderAndReadsBack() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let written = deliveries(3)
        var sequences: [UInt64] = []
        let spool = Spool(directory: path)
        #expect(spool.recover().isEmpty)
        for delivery in written { sequences += try spool.append([delivery]).map(\.sequence) }
        #expect(sequences == [1, 2, 3])
        let entries = Spool(directory: path).recoverEntries()
        #expect(entries.map(\.sequence) == [1, 2, 3])
        #expect(entries.map(\.delivery.event.id) == written.map(\.event.id))
        #expect(entries.map(\.delivery.event) == written.map { delivery in
            var copy = delivery.event
            copy.time = entries.first { $0.delivery.event.id == copy.id }!.delivery.event.time  // times round to milliseconds
            return copy
        })
        #expect(entries.map(\.delivery.route) == ["r", "r", "r"])
    }

    /// Events as they wait in a spool, every member set: a SUN-verified tap (with its
    /// signature and originality verdict, a node, a presence tag id, NDEF and an NDEF
    /// error), SUN refusals with a reason, a removal, a reader's error.
    static let populated: [TagEvent] = {
        let time = Date(timeIntervalSince1970: 1_764_431_372.123)
        var tag = TagInfo(
            uid: TagUID(bytes: [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]), type: "ntag424", nfcForumType: 4, atqa: [0, 0x44], sak: 0x20,
            ndefCapacity: 256, writable: false, name: "anna", groups: ["staff", "door"])
        tag.sun = SUNCheck(uid: "04de5f1eacc040", counter: 61, failure: nil)
        tag.signature = Array(0..<32)
        tag.genuine = .genuine
        var replayed = tag
        replayed.sun = SUNCheck(uid: "04de5f1eacc040", counter: 61, failure: .replayedCounter)
        replayed.genuine = .unknown
        replayed.signature = nil
        var malformed = TagInfo(uid: TagUID(bytes: [0x04, 0x11]), type: "ntag424", groups: ["loose"])
        malformed.sun = SUNCheck(uid: nil, counter: nil, failure: .malformed)
        malformed.genuine = .notGenuine
        let ndef: JSONValue = ["records": [["tnf": 1, "type": "U", "id": "", "payload_hex": "04646f6f72", "uri": "https://door.example/t"]]]
        return [
            TagEvent(
                kind: .tagArrived, id: "a", time: time, reader: "door", tag: tag, ndef: ndef, ndefError: "trailing bytes after the message",
                uri: "https://door.example/t?e=EF96&c=94EE", text: "Anna", dwellMs: 12, message: "read twice", presenceTagID: "ha-anna", node: "pi-1"),
            TagEvent(kind: .tagArrived, id: "b", time: time, reader: "door", tag: replayed, uri: "https://door.example/t?e=EF96&c=94EE"),
            TagEvent(kind: .tagArrived, id: "c", time: time, reader: "door", tag: malformed, ndefError: "tag removed during read", node: "pi-2"),
            TagEvent(kind: .tagRemoved, id: "d", time: time, reader: "door", tag: tag, dwellMs: 1200, presenceTagID: "ha-anna"),
            TagEvent(kind: .readerError, id: "e", time: time, reader: "door", message: "timeout", node: "pi-1"),
        ]
    }()

    /// The spool is the daemon's own record: every member of every event it held
    /// comes back as it was written, `tag.sun` and `tag.genuine` included (a
    /// verified tap delivered after a restart is still verified).
    @Test func everyMemberOfASpooledEventComesBack() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        _ = try spool.append(Self.populated.map { Delivery(event: $0, route: "door") })
        let entries = Spool(directory: path).recoverEntries()
        #expect(entries.count == Self.populated.count)
        for (read, written) in zip(entries.map(\.delivery.event), Self.populated) {
            #expect(read == written)
        }
    }

    /// What a reload reports of a spool no action takes: its undelivered entries,
    /// counted without reading them into deliveries or changing the files.
    @Test func waitingCountsWhatIsNotDoneAcrossBatches() throws {
        let state = directory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let spool = Spool(directory: Spool.directory(of: "r.0.log", under: state))
        _ = spool.recover()
        _ = try spool.append(deliveries(4))
        _ = try spool.append(deliveries(3))
        spool.markDone(through: 2)
        #expect(spool.waitingCount == 5)
        spool.markDone(through: 5)
        let before = files(spool.directory)
        #expect(Spool.waiting(under: state).map { "\($0.id) \($0.count)" } == ["r.0.log 2"])
        #expect(files(spool.directory) == before)
        spool.markDone(through: 7)
        #expect(Spool.waiting(under: state).isEmpty)
    }

    /// Group commit: a batch is one file, however many entries it holds.
    @Test func aBatchIsOneFile() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        #expect(try spool.append(deliveries(5)).map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(try spool.append(deliveries(2)).map(\.sequence) == [6, 7])
        #expect(files(path) == ["00000000000000000001.json", "00000000000000000006.json"])
        #expect(Spool(directory: path).recoverEntries().map(\.sequence) == Array(1...7))
    }

    /// Done entries are not delivered again after a restart, also from the middle of a
    /// batch; a batch that is all done is deleted, and an empty spool leaves no file.
    @Test func doneEntriesAreForgottenAcrossRestarts() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        _ = try spool.append(deliveries(3))
        _ = try spool.append(deliveries(2))
        spool.markDone(through: 2)
        #expect(files(path) == ["00000000000000000001.json", "00000000000000000004.json", "delivered"])
        let restarted = Spool(directory: path)
        #expect(restarted.recoverEntries().map(\.sequence) == [3, 4, 5])
        #expect(try restarted.append(deliveries(1)).map(\.sequence) == [6], "sequences go on behind what is there")
        restarted.markDone(through: 3)
        #expect(files(path) == ["00000000000000000004.json", "00000000000000000006.json", "delivered"])
        restarted.markDone(through: 6)
        #expect(files(path).isEmpty)
        #expect(Spool(directory: path).recover().isEmpty)
    }

    /// What a worker reads back when an outage keeps entries on disk only: whole
    /// batches from the start of a range until enough are read; a damaged batch is
    /// moved aside and skipped.
    @Test func readsBackARangeABatchAtATime() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        let written = try spool.append(deliveries(3)) + spool.append(deliveries(3)) + spool.append(deliveries(3))
        let (some, through) = spool.read(2...9, atLeast: 3)
        #expect(some.map(\.sequence) == [2, 3, 4, 5, 6])
        #expect(through == 6)
        #expect(some.map(\.delivery.event.id) == written[1...5].map(\.delivery.event.id))
        #expect(spool.read(5...5, atLeast: 3).entries.map(\.sequence) == [5])
        try "not json".write(toFile: path + "/00000000000000000004.json", atomically: true, encoding: .utf8)
        let (rest, end) = spool.read(4...9, atLeast: 100)
        #expect(rest.map(\.sequence) == [7, 8, 9])
        #expect(end == 9)
        #expect(FileManager.default.fileExists(atPath: path + "/00000000000000000004.json.bad"))
    }

    /// After a long outage a restart holds no entry in memory: `recover` gives
    /// ranges, and the backlog reads them back a few batches at a time when their
    /// turn comes — every entry, in order, never more than its limit (plus the
    /// batch that crosses it) held at once.
    @Test func aRecoveredSpoolIsReadBackInOrderHoldingAtMostTheLimit() async throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        let (batches, batchSize, limit) = (40, 25, 30)
        var written: [Spool.Entry] = []
        for _ in 0..<batches { written += try spool.append(deliveries(batchSize)) }
        spool.markDone(through: 5)  // a restart can begin in the middle of a batch

        let restarted = Spool(directory: path)
        let ranges = restarted.recover()
        #expect(ranges == [6...UInt64(batches * batchSize)])
        let backlog = SpoolBacklog(spool: restarted, limit: limit)
        for range in ranges { backlog.push(onDisk: range) }
        backlog.finish()
        #expect(backlog.held == 0, "nothing is read at recovery")
        var (delivered, mostHeld) = ([AcceptedDelivery](), 0)
        while let next = await backlog.next() {
            mostHeld = max(mostHeld, backlog.held + 1)
            delivered.append(next)
        }
        #expect(delivered.map(\.sequence) == written.dropFirst(5).map(\.sequence))
        #expect(delivered.map(\.delivery.event.id) == written.dropFirst(5).map(\.delivery.event.id))
        #expect(mostHeld <= limit + batchSize, "held at most \(mostHeld)")
    }

    /// A run of batches without a gap is one range; a batch moved aside makes a gap.
    @Test func recoveredRangesSkipABatchMovedAside() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        _ = try spool.append(deliveries(2))
        _ = try spool.append(deliveries(2))
        _ = try spool.append(deliveries(2))
        try "not json".write(toFile: path + "/00000000000000000003.json", atomically: true, encoding: .utf8)
        #expect(Spool(directory: path).recover() == [1...2, 5...6])
        #expect(FileManager.default.fileExists(atPath: path + "/00000000000000000003.json.bad"))
    }

    /// A long outage leaves thousands of batches: marked done one by one they are
    /// forgotten in bulk, and what is left reads back right all along.
    @Test func thousandsOfBatchesMarkedDoneOneByOne() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let count = 3_000
        let spool = Spool(directory: path)
        _ = spool.recover()
        _ = try spool.append(deliveries(1))
        // Copies of that one-entry batch under the names of the ones after it, written with write(2) and no fsync
        // each (Foundation's `Data.write` syncs every file: 3,000 of them took 11-18 s of waiting on the disk).
        let batch = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "/00000000000000000001.json")))
        for sequence in 2...count {
            let file = open(path + "/" + String(format: "%020d", sequence) + ".json", O_WRONLY | O_CREAT | O_EXCL, 0o600)
            try #require(file >= 0)
            defer { close(file) }
            try #require(batch.withUnsafeBytes { write(file, $0.baseAddress, $0.count) } == batch.count)
        }
        let restarted = Spool(directory: path)
        #expect(restarted.recover() == [1...UInt64(count)])
        for sequence in 1...UInt64(count) {
            restarted.markDone(through: sequence)
            if sequence < UInt64(count), sequence % 97 == 0 || sequence == UInt64(count) - 1 {
                let left = restarted.read(sequence + 1...UInt64(count), atLeast: 2).entries.map(\.sequence)
                #expect(left == Array(sequence + 1...min(sequence + 2, UInt64(count))), "after \(sequence) done")
            }
        }
        #expect(files(path).isEmpty)
        #expect(try restarted.append(deliveries(1)).map(\.sequence) == [UInt64(count) + 1])
    }

    /// A crash mid-write leaves a temporary file: it was never accepted, and is cleaned up.
    @Test func unfinishedWritesAreIgnored() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        let kept = try spool.append(deliveries(1))
        try "{\"route\":\"r\",\"ev".write(toFile: path + "/.00000000000000000002.json.tmp", atomically: false, encoding: .utf8)
        #expect(Spool(directory: path).recoverEntries().map(\.sequence) == kept.map(\.sequence))
        #expect(!FileManager.default.fileExists(atPath: path + "/.00000000000000000002.json.tmp"))
    }

    /// A damaged entry is moved aside (kept for a human), not retried forever nor deleted.
    @Test func damagedEntriesAreMovedAside() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        _ = try spool.append(deliveries(1))
        try "not json".write(toFile: path + "/00000000000000000002.json", atomically: true, encoding: .utf8)
        #expect(Spool(directory: path).recoverEntries().map(\.sequence) == [1])
        #expect(FileManager.default.fileExists(atPath: path + "/00000000000000000002.json.bad"))
    }

    /// A batch someone besides the daemon's user could write is not its own record (it could
    /// claim `tag.sun: verified`): it is set aside, not delivered. A `delivered` such as that is
    /// set aside too, and every entry is delivered again (at least once).
    @Test(arguments: [0o620, 0o602])
    func aSpoolFileOthersCanWriteIsNotTrusted(mode: Int) throws {
        let batchPath = directory(), deliveredPath = directory()
        defer { for path in [batchPath, deliveredPath] { try? FileManager.default.removeItem(atPath: path) } }
        let batches = Spool(directory: batchPath)
        _ = batches.recover()
        _ = try batches.append(Self.populated.prefix(2).map { Delivery(event: $0, route: "door") })
        _ = try batches.append(deliveries(3))
        #expect(chmod(batchPath + "/00000000000000000001.json", mode_t(mode)) == 0)
        #expect(Spool(directory: batchPath).recoverEntries().map(\.sequence) == [3, 4, 5])
        #expect(files(batchPath) == ["00000000000000000001.json.bad", "00000000000000000003.json"])

        let delivered = Spool(directory: deliveredPath)
        _ = delivered.recover()
        _ = try delivered.append(deliveries(3))
        delivered.markDone(through: 1)
        #expect(chmod(deliveredPath + "/delivered", mode_t(mode)) == 0)
        #expect(Spool(directory: deliveredPath).recoverEntries().map(\.sequence) == [1, 2, 3])
        #expect(files(deliveredPath) == ["00000000000000000001.json", "delivered.bad"])
    }

    /// Ten one-entry batches, so no `delivered` the daemon writes can lie past the first.
    func tenBatches(_ path: String) throws -> Spool {
        let spool = Spool(directory: path)
        _ = spool.recover()
        for delivery in deliveries(10) { _ = try spool.append([delivery]) }
        return spool
    }

    /// `delivered` as the daemon never writes it — by hand, past a batch still on
    /// disk, past every sequence, a symlink — is moved aside and every entry is
    /// delivered again (at least once); none is skipped, nothing traps.
    @Test(arguments: ["7\n", "00000000000000000007\n", "18446744073709551615\n", "99999999999999999999\n", "", "symlink"])
    func impossibleDeliveredIsQuarantinedAndSkipsNothing(_ content: String) throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try tenBatches(path)
        let target = path + ".target"
        defer { try? FileManager.default.removeItem(atPath: target) }
        if content == "symlink" {
            try "00000000000000000009\n".write(toFile: target, atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: path + "/delivered", withDestinationPath: target)
        } else {
            try content.write(toFile: path + "/delivered", atomically: false, encoding: .utf8)
        }
        let restarted = Spool(directory: path)
        #expect(restarted.recoverEntries().map(\.sequence) == Array(1...10))
        #expect(files(path).contains("delivered.bad"))
        #expect(!files(path).contains("delivered"))
        restarted.markDone(through: 3)
        #expect(Spool(directory: path).recoverEntries().map(\.sequence) == Array(4...10), "a new delivered is kept after that")
        if content == "symlink" { #expect(try String(contentsOfFile: target, encoding: .utf8) == "00000000000000000009\n") }
    }

    /// A batch whose sequences cannot be (past the highest, overflowing, zero,
    /// not 20 digits, overlapping the one before) goes aside; the rest is delivered.
    @Test(arguments: ["18446744073709551615", "04611686018427387904", "00000000000000000000", "7", "00000000000000000002"])
    func impossibleBatchNamesAreQuarantined(_ name: String) throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = spool.recover()
        _ = try spool.append(deliveries(3))
        let batch = try String(contentsOfFile: path + "/00000000000000000001.json", encoding: .utf8)
        try batch.write(toFile: path + "/\(name).json", atomically: false, encoding: .utf8)
        let restarted = Spool(directory: path)
        #expect(restarted.recoverEntries().map(\.sequence) == [1, 2, 3])
        #expect(files(path).contains("\(name).json.bad"))
        #expect(try restarted.append(deliveries(1)).map(\.sequence).allSatisfy { $0 >= 4 && $0 <= SpoolBookkeeping.maximumSequence + 1 })
    }

    /// A symlink planted under a temporary's name is replaced, never written through.
    @Test func aPlantedSymlinkDoesNotTruncateItsTarget() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let target = path + ".secret"
        defer { try? FileManager.default.removeItem(atPath: target) }
        try "root's secret\n".write(toFile: target, atomically: false, encoding: .utf8)
        let spool = Spool(directory: path)
        _ = spool.recover()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path + "/.00000000000000000001.json.tmp", withDestinationPath: target)
        #expect(try spool.append(deliveries(2)).map(\.sequence) == [1, 2])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "root's secret\n")
        #expect(Spool(directory: path).recoverEntries().map(\.sequence) == [1, 2])
    }

    /// A state folder another user could plant files in is refused, saying why.
    @Test func checkWritableRefusesAFolderOthersCanWrite() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Spool.checkWritable(stateDirectory: path)
        chmod(path, 0o777)
        let open = #expect(throws: SpoolError.self) { try Spool.checkWritable(stateDirectory: path) }
        #expect(open?.description.hasPrefix("spool: check folder \(path): writable by group or others (mode 0777)") == true)
        chmod(path, 0o700)
        chmod(path + "/spool", 0o775)
        #expect(throws: SpoolError.self) { try Spool.checkWritable(stateDirectory: path) }
        chmod(path + "/spool", 0o700)
        try FileManager.default.createDirectory(atPath: path + "/spool/r.0.log", withIntermediateDirectories: true)
        chmod(path + "/spool/r.0.log", 0o777)
        let action = #expect(throws: SpoolError.self) { try Spool.checkWritable(stateDirectory: path) }
        #expect(action?.description.hasPrefix("spool: check folder \(path)/spool/r.0.log: writable by group or others") == true)
        chmod(path + "/spool/r.0.log", 0o700)
        try Spool.checkWritable(stateDirectory: path)
        let stranger = geteuid() &+ 1
        let owned = #expect(throws: SpoolError.self) { try Spool.checkWritable(stateDirectory: path, owner: stranger) }
        #expect(owned?.description.hasPrefix("spool: check folder \(path): owned by uid \(geteuid()), not by the daemon's user (uid \(stranger))") == true)
        try FileManager.default.removeItem(atPath: path + "/spool")
        try FileManager.default.createDirectory(atPath: path + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path + "/spool", withDestinationPath: path + "/elsewhere")
        let linked = #expect(throws: SpoolError.self) { try Spool.checkWritable(stateDirectory: path) }
        #expect(linked?.description.contains("not a folder") == true)
    }

    @Test func unwritableDirectoryIsAnError() {
        let spool = Spool(directory: "/proc/tagrouter-cannot-exist/spool")
        #expect(throws: SpoolError.self) { try spool.append(deliveries(1)) }
    }

    /// The check at start names the part of the path that cannot be made, and why.
    @Test func checkWritableNamesThePathAndTheReason() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Spool.checkWritable(stateDirectory: path + "/state")
        #expect(files(path + "/state/spool").isEmpty, "the probe file is removed")
        try "a file".write(toFile: path + "/file", atomically: true, encoding: .utf8)
        let error = #expect(throws: SpoolError.self) { try Spool.checkWritable(stateDirectory: path + "/file/state") }
        #expect(error?.description == "spool: create directory \(path)/file/state: Not a directory")
    }

    @Test func backoffDoublesWithJitterAndHonoursRetryAfter() {
        let policy = DeliveryPolicy(queueCapacity: 1, attempts: 3, backoff: .milliseconds(100), maxBackoff: .milliseconds(350), spool: true, retryConfigured: false)
        for _ in 0..<50 {
            let first = policy.delay(afterAttempt: 1), second = policy.delay(afterAttempt: 2), capped = policy.delay(afterAttempt: 6)
            #expect(first >= .milliseconds(50) && first <= .milliseconds(100))
            #expect(second >= .milliseconds(100) && second <= .milliseconds(200))
            #expect(capped >= .milliseconds(175) && capped <= .milliseconds(350))
        }
        #expect(policy.delay(afterAttempt: 1, requested: .milliseconds(300)) == .milliseconds(300))
        #expect(policy.delay(afterAttempt: 1, requested: .seconds(30)) == .milliseconds(350))
    }
}
