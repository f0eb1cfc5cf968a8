import DaemonTesting
import Foundation
import Harness
import OrderedJSON
import Testing
import TestSupport

/// The spool's promise: an event accepted for an action with `spool: true` is on
/// disk before its first delivery attempt, so SIGKILL loses none of them — the
/// next start delivers every one, in order, once.
@Suite(.timeLimit(.minutes(2)))
struct WriteAheadTests {
    private static let count = 20
    private static let events = (1...count).map { arrival(uid: String(format: "04%02x", $0), uri: "https://example.com/\($0)") }
    private static var ids: [String] { events.map { $0["id"]?.stringValue ?? "?" } }

    private static func arguments(_ file: String) -> [String] {
        ["run", "--config", file, "--events-from", "-", "--log-format", "json", "--log-level", "debug"]
    }

    /// Sends the events, waits until the action wrote them all ahead to its spool,
    /// and kills the daemon with SIGKILL — before the retries (backoff 5 s, or MQTT's
    /// `hold` of 10 s) ran out: no event was given up on.
    private static func acceptAndKill(_ daemon: TagrouterProcess, action: String) async throws {
        for event in events { daemon.send(event) }
        let written = await eventually { writtenAhead(daemon, action: action) >= count }
        daemon.signal(SIGKILL)
        #expect(written, "written ahead: \(writtenAhead(daemon, action: action)) of \(count)\n\(daemon.stderr.joined(separator: "\n"))")
        _ = try await daemon.exitStatus()
        let givenUp = daemon.stderr.filter { $0.contains("event not delivered") }
        #expect(givenUp.isEmpty, "killed after the retries ran out: \(givenUp)")
    }

    /// One shell action that delivers (appends the event id to `<folder>/delivered`)
    /// only once the file `<folder>/go` exists, retrying briefly, spooling under `state`.
    private static func doorConfig(_ folder: String, state: String) -> String {
        """
        state_dir: \(state)
        routes:
          - name: door
            actions:
              - shell: { script: '[ -e go ] && echo "$TAG_EVENT_ID" >> delivered', cwd: \(folder), retry: { attempts: 1, backoff: 50ms, max_backoff: 100ms } }
        """
    }

    /// The events the action's writer reported on disk (`written ahead to the spool`, debug).
    private static func writtenAhead(_ daemon: TagrouterProcess, action: String) -> Int { daemon.reported("written ahead to the spool", action: action) }

    @Test func eventsForAWebhookAnswering500SurviveSIGKILL() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        func config(_ url: String) -> String {
            """
            state_dir: \(scratch.path)/state
            routes:
              - name: hook
                actions:
                  - webhook: { url: "\(url)", retry: { attempts: 3, backoff: 5s } }
            """
        }
        let failing = try await HTTPTestServer([.init(status: 500)])
        let file = try scratch.write("tagrouter.yaml", config(failing.url))
        let first = try TagrouterProcess(Self.arguments(file), directory: scratch.path)
        defer { first.stop() }
        try await Self.acceptAndKill(first, action: "hook.0.webhook")

        let answering = try await HTTPTestServer([.init()])
        _ = try scratch.write("tagrouter.yaml", config(answering.url))
        let second = try TagrouterProcess(Self.arguments(file), directory: scratch.path)
        defer { second.stop() }
        _ = await answering.waitForRequests(Self.count)
        second.closeInput()
        #expect(try await second.exitStatus() == 0)
        let keys = (await answering.requests).map { $0.headers["idempotency-key"] ?? "" }
        #expect(keys == Self.ids, "every event once, in order")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/state/spool/hook.0.webhook").isEmpty, "delivered entries are removed")
    }

    @Test func eventsForAnMQTTActionWithTheBrokerDownSurviveSIGKILL() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let broker = try await MosquittoBroker()
        await broker.stop()
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: write-ahead, reconnect_delay: 50ms, reconnect_delay_max: 200ms }
            routes:
              - name: all
                actions:
                  - mqtt: { topic: "write-ahead/{{tag.uid}}", qos: 1, retain: false, payload: "{{id}}" }
            """)
        let first = try TagrouterProcess(Self.arguments(file), directory: scratch.path)
        defer { first.stop() }
        try await Self.acceptAndKill(first, action: "all.0.mqtt")

        try await broker.start()
        let subscriber = try Subscriber(port: broker.port, filter: "write-ahead/#", qos: 1)
        try await subscriber.waitUntilSubscribed()
        let second = try TagrouterProcess(Self.arguments(file), directory: scratch.path)
        defer { second.stop() }
        let received = try await subscriber.waitFor(count: Self.count)
        second.closeInput()
        #expect(try await second.exitStatus() == 0)
        #expect(received.map(\.text) == Self.ids, "every event once, in order")
        #expect(subscriber.messages.count == Self.count, "none twice")
    }

    /// Group commit across MQTT messages: a central router reads the QoS 1
    /// messages waiting for it in groups and acknowledges each group once it is
    /// written ahead, so a burst lands in far fewer spool batches (files) than
    /// messages — one message at a time, it took one batch, two `fsync`s, each.
    @Test func aBurstOfMQTTMessagesIsWrittenAheadInFarFewerBatchesThanMessages() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let broker = try await MosquittoBroker()
        let failing = try await HTTPTestServer([.init(status: 500)])  // nothing is delivered: every batch stays on disk
        // shutdown_timeout: the deliveries that keep failing are left in the spool after 1 s at SIGTERM, not 5.
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            shutdown_timeout: 1s
            readers: []
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: central }
            inputs: [{ mqtt: { topic: "fleet/+/+/tag.arrived", trust: broker } }]
            routes:
              - name: hook
                actions: [{ webhook: { url: "\(failing.url)", retry: { attempts: 3, backoff: 5s } } }]
            """)
        let arguments = ["run", "--config", file, "--log-format", "json", "--log-level", "debug"]
        // The first run makes the input's persistent session; the burst waits there for the second run.
        let first = try TagrouterProcess(arguments, directory: scratch.path)
        defer { first.stop() }
        try await first.stderr(containing: "mqtt subscribed")
        first.signal(SIGTERM)
        #expect(try await first.exitStatus() == 0)
        let count = 400
        let taps = try scratch.write("taps.jsonl", (1...count).map { arrival(uid: String(format: "06%04x", $0)).serialized() + "\n" }.joined())
        try MosquittoBroker.run("/bin/sh", ["-c", "mosquitto_pub -p \(broker.port) -q 1 -t fleet/pi-1/door/tag.arrived -l < \(taps)"])

        let second = try TagrouterProcess(arguments, directory: scratch.path)
        defer { second.stop() }
        let written = await eventually { Self.writtenAhead(second, action: "hook.0.webhook") >= count }
        #expect(written, "written ahead: \(Self.writtenAhead(second, action: "hook.0.webhook")) of \(count)")
        let spool = scratch.path + "/state/spool/hook.0.webhook"
        let batches = try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasSuffix(".json") }
        #expect(batches.count <= count / 10, "\(count) messages in \(batches.count) batches")
        second.signal(SIGTERM)
        #expect(try await second.exitStatus() == 0)
    }

    /// A SUN-checked tap that waited in the spool is delivered after a restart as it was
    /// routed: `tag.sun` (verified, or refused with its reason) is in the payload and the
    /// templates, not dropped as from an untrusted input (the spool is the daemon's own record),
    /// and not checked again (the counter was taken by the first run: it would read as a replay).
    /// A `sun` claimed in an event from `--events-from` is still ignored: the spool keeps what routing found.
    @Test func aSUNVerdictSurvivesTheSpoolAcrossARestart() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        // AN12196's example: UID 04de5f1eacc040, counter 61, all keys zero.
        let url = "https://door.example/t?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
        let key = try scratch.write("zero.key", String(repeating: "0", count: 32))
        #expect(chmod(key, 0o600) == 0)
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            sun:
              keys:
                - { id: factory, meta_key_file: \(key), file_key_file: \(key) }
            routes:
              - name: door
                actions:
                  - shell:
                      script: '[ -e go ] && cat >> delivered && echo "$VERDICT" >> verdicts'
                      env: { VERDICT: "sun={{tag.sun.verified}}" }
                      cwd: \(scratch.path)
                      retry: { attempts: 1 }
            """)
        let (tap, copy) = (arrival(uid: "04de5f1eacc040", uri: url), arrival(uid: "04de5f1eacc040", uri: url))
        let forged = try JSONValue.parse(
            #"{"event":"tag.arrived","id":"forged","reader":"door","tag":{"uid":"04aabbccddeeff","type":"ntag424","sun":{"verified":true,"counter":99}}}"#)
        let first = try TestDaemon(configFile: file)
        for event in [tap, copy, forged] { try await first.send(event) }
        first.closeInput()
        try await first.finished()
        #expect(first.log.contains { $0.message.contains("3 events wait in the spool for the next start") }, "\(first.log.map(\.message))")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/delivered"), "the action failed in the first run")

        _ = try scratch.write("go", "")
        let second = try TestDaemon(configFile: file)
        func lines(_ name: String) -> [String] {
            ((try? String(contentsOfFile: scratch.path + "/" + name, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        #expect(await eventually { lines("verdicts").count >= 3 })
        second.closeInput()
        try await second.finished()
        let delivered = try lines("delivered").map { try JSONValue.parse($0) }
        #expect(delivered.map { $0["id"] } == [tap["id"], copy["id"], forged["id"]], "every one, in order, once")
        #expect(delivered.first?["tag"]?["sun"] == ["verified": true, "uid": "04de5f1eacc040", "counter": 61])
        #expect(delivered.dropFirst().first?["tag"]?["sun"] == ["verified": false, "uid": "04de5f1eacc040", "counter": 61, "reason": "replayed-counter"])
        #expect(delivered.last.map { $0["tag"]?["sun"] == nil } == true, "a claimed verdict is not read from --events-from")
        #expect(lines("verdicts") == ["sun=true", "sun=false", "sun="], "{{tag.sun.verified}} renders as it did before the restart")
    }

    /// A `state_dir` that cannot be written is reported once at start, naming it and
    /// why; spooling is then off: events are delivered or fail, none is spooled.
    @Test func anUnwritableStateDirIsReportedAtStartAndSpoolingIsOff() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let blocker = try scratch.write("not-a-directory", "")
        let server = try await HTTPTestServer([.init(status: 500), .init()])
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(blocker)/state
            routes:
              - name: hook
                actions:
                  - webhook: { url: "\(server.url)", retry: { attempts: 1 } }
            """)
        // In process: the daemon's log is captured as entries.
        let daemon = try TestDaemon(configFile: file)
        for event in Self.events.prefix(3) { try await daemon.send(event) }
        _ = await server.waitForRequests(3)
        daemon.closeInput()
        try await daemon.finished()
        let warnings = daemon.log.filter { $0.message.contains("state_dir cannot be written") }
        #expect(warnings.count == 1, "\(daemon.log.map(\.message))")
        let warning = try #require(warnings.first)
        #expect(warning.level == .warning)
        #expect(warning.fields["state_dir"]?.stringValue == blocker + "/state")
        #expect(warning.fields["reason"]?.stringValue == "spool: create directory \(blocker)/state: Not a directory")
        #expect(warning.fields["actions"] == ["hook.0.webhook"])
        #expect(daemon.log.contains { $0.message.contains("hook.0.webhook: delivery failed; event not delivered") && ($0.message + JSONValue.object($0.fields).serialized()).contains("no spool") })
        let stopped = try #require(daemon.log.last { $0.message == "stopped" })
        let counters = JSONValue.object(stopped.fields)["actions"]?["hook.0.webhook"]
        #expect(counters?["failed"] == 1 && counters?["delivered"] == 2 && counters?["spooled"] == 0, "\(String(describing: counters))")
    }

    /// A spool whose bookkeeping was damaged or tampered with — `delivered` written
    /// by hand, a batch named with the highest sequence — once trapped the daemon at
    /// every start or skipped events. Both are set aside, logged with the reason,
    /// and every event is delivered, in order, once.
    @Test func aDamagedSpoolIsSetAsideAndEveryEventIsDelivered() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", Self.doorConfig(scratch.path, state: scratch.path + "/state"))
        let first = try TagrouterProcess(Self.arguments(file), directory: scratch.path)
        defer { first.stop() }
        try await Self.acceptAndKill(first, action: "door.0.shell")

        let spool = scratch.path + "/state/spool/door.0.shell"
        let batches = try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasSuffix(".json") }.sorted()
        let oldest = try #require(batches.first)
        try FileManager.default.copyItem(atPath: spool + "/" + oldest, toPath: spool + "/18446744073709551615.json")
        try "7\n".write(toFile: spool + "/delivered", atomically: false, encoding: .utf8)
        _ = try scratch.write("go", "")

        let second = try TagrouterProcess(Self.arguments(file), directory: scratch.path)
        defer { second.stop() }
        let delivered = scratch.path + "/delivered"
        func lines() -> [String] { ((try? String(contentsOfFile: delivered, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        #expect(await eventually { lines().count >= Self.count })
        second.closeInput()
        #expect(try await second.exitStatus() == 0)
        #expect(lines() == Self.ids, "every event once, in order")
        let setAside = second.stderr.filter { $0.contains("spool file moved aside") }.compactMap { try? JSONValue.parse($0) }
        #expect(setAside.compactMap { $0["file"]?.stringValue }.sorted() == [spool + "/18446744073709551615.json", spool + "/delivered"])
        #expect(setAside.allSatisfy { !($0["reason"]?.stringValue ?? "").isEmpty })
    }

    /// The spool's disk fills up while the target is down: the user is told once,
    /// with the reason; later events wait in memory; when the target is back every
    /// event arrives, in order, once.
    @Test(.enabled(if: getuid() == 0, "needs root: mounts a 64 KiB tmpfs (mode 0700: tagrouter refuses a state_dir others can write) as state_dir in a private mount namespace (unshare -m)"))
    func aFullSpoolDiskIsReportedOnceAndNothingAcceptedIsLost() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let state = scratch.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let file = try scratch.write("tagrouter.yaml", Self.doorConfig(scratch.path, state: state))
        let mountTmpfs = ["/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount -t tmpfs -o size=64k,mode=0700 tmpfs \"$0\" && exec \"$@\"", state]
        let daemon = try TagrouterProcess(Self.arguments(file), directory: scratch.path, wrappedIn: mountTmpfs)
        defer { daemon.stop() }
        let events = (1...40).map { arrival(uid: String(format: "05%02x", $0)) }
        // One at a time, so each is a batch of its own (a 4 KiB page of the 64 KiB).
        for (index, event) in events.enumerated() {
            daemon.send(event)
            let accepted = await eventually {
                Self.writtenAhead(daemon, action: "door.0.shell") + daemon.reported("the spool cannot be written", action: "door.0.shell") > index
            }
            try #require(accepted, "event \(index + 1) neither written ahead nor reported\n\(daemon.stderr.joined(separator: "\n"))")
        }
        let errors = daemon.stderr.filter { $0.contains("the spool cannot be written") && $0.contains("\"error\"") }
        #expect(errors.count == 1, "reported once: \(errors)")
        #expect(errors.first?.contains("No space left on device") == true, "\(errors)")
        #expect(Self.writtenAhead(daemon, action: "door.0.shell") < events.count, "the disk filled up")

        _ = try scratch.write("go", "")
        let delivered = scratch.path + "/delivered"
        func lines() -> [String] { ((try? String(contentsOfFile: delivered, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        #expect(await eventually { lines().count >= events.count })
        daemon.closeInput()
        #expect(try await daemon.exitStatus() == 0)
        #expect(lines() == events.map { $0["id"]?.stringValue ?? "?" }, "every event once, in order")
        let stopped = try JSONValue.parse(try #require(daemon.stderr.last { $0.contains("\"stopped\"") }))
        let counters = stopped["actions"]?["door.0.shell"]
        #expect(counters?["delivered"] == .int(Int64(events.count)) && counters?["failed"] == 0 && counters?["dropped"] == 0, "\(String(describing: counters))")
    }
}
