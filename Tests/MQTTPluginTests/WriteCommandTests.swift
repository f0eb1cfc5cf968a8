import Foundation
import Harness
import OrderedJSON
import Synchronization
import TagCore
import TagRouter
import TestSupport
import Testing
@testable import MQTTPlugin

/// Write requests over a real mosquitto to the plugin, with readers that hold
/// every job until the test answers it: who may write (the token), how many
/// requests a reader takes (one), what the answer shows (no UID), and what a
/// flood costs (no job, no memory, no log line per request).
@Suite(.timeLimit(.minutes(3)))
struct WriteCommandTests {
    static let token = "4f1b2c9d8e7a6b5c4d3e2f1a"
    static let topic = "tagrouter/front-door/write"

    /// Readers that keep each job until `finish` (or its withdrawal) answers it.
    final class HeldJobs: TagJobRunner {
        private let state = Mutex<(held: [Int: @Sendable (TagJobResult) -> Void], submitted: [TagJob], next: Int)>(([:], [], 0))

        var submitted: [TagJob] { state.withLock { $0.submitted } }
        var waiting: Int { state.withLock { $0.held.count } }

        func submit(_ job: TagJob, reader: String?, answer: @escaping @Sendable (TagJobResult) -> Void) -> TagJobHandle {
            let id = state.withLock { state in
                defer { state.next += 1 }
                state.submitted.append(job)
                state.held[state.next] = answer
                return state.next
            }
            return TagJobHandle { [weak self] in self?.answer(id, .refused(TagJobRefusal(.cancelled, "withdrawn"))) }
        }

        /// Answers every held job with `result`.
        func finish(_ result: TagJobResult) {
            for id in state.withLock({ Array($0.held.keys) }) { answer(id, result) }
        }

        private func answer(_ id: Int, _ result: TagJobResult) {
            state.withLock { $0.held.removeValue(forKey: id) }?(result)
        }
    }

    static func plugin(_ broker: MosquittoBroker, jobs: HeldJobs) throws -> MQTTPlugin {
        try "\(token)\n".write(toFile: broker.directory.appendingPathComponent("command-token").path, atomically: true, encoding: .utf8)
        chmod(broker.directory.appendingPathComponent("command-token").path, 0o600)  // a secret file is private, or it is refused
        let yaml = "{host: 127.0.0.1, port: \(broker.port), client_id: writer, commands: {token_file: command-token}}"
        let section = try ConfigValue.parse(yaml, spec: MQTTSection.spec, path: "mqtt", context: ConfigContext(directory: broker.directory.path))
        let context = PluginContext(stateDirectory: NSTemporaryDirectory(), readers: [ReaderConfig.testing(name: "front-door")], tagJobs: jobs)
        return try MQTTPlugin(section: section, context: context)
    }

    /// A broker, a subscriber to the results and the plugin with held jobs (not yet running).
    static func start() async throws -> (MosquittoBroker, Subscriber, HeldJobs, MQTTPlugin) {
        let broker = try await MosquittoBroker()
        let results = try Subscriber(port: broker.port, filter: Self.topic + "/result", qos: 1)
        try await results.waitUntilSubscribed()
        let jobs = HeldJobs()
        return (broker, results, jobs, try plugin(broker, jobs: jobs))
    }

    static func request(_ fields: String, token: String? = Self.token) -> String {
        "{" + (token.map { #""token":"\#($0)","# } ?? "") + fields + "}"
    }

    /// Publishes an authenticated request that writes nothing until the plugin answers it (it has subscribed).
    static func waitUntilListening(_ broker: MosquittoBroker, _ results: Subscriber) async throws {
        for _ in 0..<100 {
            try broker.publishLines([request(#""id":"probe""#)], topic: topic)
            if (try? await results.waitFor(timeout: .milliseconds(300), "the probe's answer") { $0.json["id"] == "probe" }) != nil { return }
        }
        throw TestFailure(description: "the plugin never answered the probe")
    }

    /// `commands: true` of earlier versions, a section without a token file, and a short token are config errors.
    @Test(arguments: [
        ("{commands: true}", "mqtt.commands: expected a mapping with keys token_file, got \"true\""),
        ("{commands: {}}", "mqtt.commands: missing required key 'token_file'"),
        ("{commands: {token_file: short-token}}", "mqtt.commands.token_file: the token is 15 characters; write one of at least 16"),
    ])
    func commandsWithoutAGoodTokenAreAConfigError(yaml: String, problem: String) throws {
        let directory = NSTemporaryDirectory() + "write-commands-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "0123456789abcde\n".write(toFile: directory + "/short-token", atomically: true, encoding: .utf8)
        chmod(directory + "/short-token", 0o600)
        let error = #expect(throws: ConfigErrors.self) {
            let section = try ConfigValue.parse(yaml, spec: MQTTSection.spec, path: "mqtt", context: ConfigContext(directory: directory))
            _ = try MQTTPlugin(section: section, context: PluginContext(stateDirectory: directory, readers: [ReaderConfig.testing(name: "front-door")]))
        }
        #expect(error?.description.contains(problem) == true, "\(error?.description ?? "no error")")
    }

    @Test func onlyARequestWithTheTokenReachesTheReaderAndItsAnswerNamesNoUID() async throws {
        let (broker, results, jobs, plugin) = try await Self.start()
        let commands = try #require(plugin.commands)
        try await plugin.whileRunning {
            try await Self.waitUntilListening(broker, results)
            try broker.publishLines([
                Self.request(#""id":"none","uri":"https://evil.example/x""#, token: nil),
                Self.request(#""id":"wrong","uri":"https://evil.example/x""#, token: String(Self.token.dropLast()) + "0"),
                Self.request(#""id":"short","uri":"https://evil.example/x""#, token: String(Self.token.dropLast())),
                Self.request(#""id":"number","uri":"https://evil.example/x""#, token: nil).replacingOccurrences(of: "{", with: #"{"token":7,"#),
                #"not json"#,
                #"{"token":"\#(Self.token)","id":"huge","text":"\#(String(repeating: "x", count: MQTTWriteCommands.maximumPayload))"}"#,
            ], topic: Self.topic)
            #expect(await eventually { commands.refusals.count(.unauthenticated) == 4 && commands.refusals.count(.malformed) == 2 })
            #expect(jobs.submitted.isEmpty, "no forged request claimed a tag")

            try broker.publishLines([Self.request(#""id":"w1","ha_tag":true,"timeout":20"#)], topic: Self.topic)
            #expect(await eventually { jobs.waiting == 1 })
            let tag = TagInfo(uid: TagUID("04a224b2c35e80")!, type: "ntag215")
            jobs.finish(.written(TagWriteReport(reader: "front-door", tag: tag, records: 1, bytes: 57, verified: true, locked: false)))
            let answer = try await results.waitFor("the write's answer") { $0.json["id"] == "w1" }
            #expect(answer.json["ok"] == true)
            #expect(answer.json.value(atPath: "written.summary") == "wrote 1 record (57 bytes) to ntag215, read back and verified")
            #expect(answer.json["tag_id"]?.stringValue?.count == 36)
            for secret in ["04a224b2c35e80", "04-A2-24-B2-C3-5E-80", "04A224B2C35E80"] {
                #expect(!answer.text.localizedCaseInsensitiveContains(secret), "the result topic may be read by others: \(answer.text)")
            }
            #expect(!answer.text.contains(Self.token), "the token is not echoed")
        }
        #expect(results.messages.map { $0.json["id"]?.stringValue ?? "?" }.filter { $0 != "probe" } == ["w1"], "no forged request was answered")
    }

    /// Mime and external types are 1 to 255 bytes, a Text record's language 1 to 63: NDEF has no
    /// room for more, and an empty one makes a record readers call damaged.
    @Test func aRecordTypeOrLanguageThatNDEFCannotHoldIsRefusedBeforeTheReaderIsAsked() async throws {
        let (broker, results, jobs, plugin) = try await Self.start()
        try await plugin.whileRunning {
            try await Self.waitUntilListening(broker, results)
            let mime256 = String(repeating: "a", count: 250) + "/plain"
            let lang64 = String(repeating: "e", count: 64)
            try broker.publishLines([
                Self.request(#""id":"mime","mime":"\#(mime256)","data":"hi""#),
                Self.request(#""id":"external","records":[{"uri":"https://a.example"},{"external":"example.com:\#(String(repeating: "t", count: 244))","data":"x"}]"#),
                Self.request(#""id":"lang","text":"hello","lang":"\#(lang64)""#),
                Self.request(#""id":"timeout","uri":"https://a.example","timeout":121"#),
                Self.request(#""id":"no-type","mime":"","data":"x""#),
                Self.request(#""id":"no-lang","text":"hello","lang":"""#),
            ], topic: Self.topic)
            let received = try await results.waitFor(count: 6) { $0.json["id"] != "probe" }.map(\.json)
            let answers = Dictionary(received.map { ($0["id"]?.stringValue ?? "?", $0) }) { first, _ in first }
            #expect(received.map { $0["refused"] } == Array(repeating: "bad_request", count: 6))
            #expect(answers["mime"]?["error"] == "the request.mime is 256 bytes; a record's type holds 1 to 255")
            #expect(answers["external"]?["error"] == "records[1].external is 256 bytes; a record's type holds 1 to 255")
            #expect(answers["lang"]?["error"] == "the request.lang is 64 bytes; a Text record's language tag holds 1 to 63 (such as en or de-CH)")
            #expect(answers["timeout"]?["error"] == "timeout must be more than 0 and at most 120 seconds, not 121.0")
            #expect(answers["no-type"]?["error"] == "the request.mime is 0 bytes; a record's type holds 1 to 255", "an empty type is a damaged record")
            #expect(answers["no-lang"]?["error"] == "the request.lang is 0 bytes; a Text record's language tag holds 1 to 63 (such as en or de-CH)")
            #expect(jobs.submitted.isEmpty)

            // Just within the limits, the same request reaches the reader, the language whole.
            let mime255 = String(repeating: "a", count: 249) + "/plain"
            try broker.publishLines([Self.request(#""id":"fits","records":[{"mime":"\#(mime255)","data":"hi"},{"text":"hello","lang":"\#(String(lang64.dropLast()))"}]"#)], topic: Self.topic)
            #expect(await eventually { jobs.submitted.count == 1 })
            guard case .write(let order)? = jobs.submitted.first?.work else { throw TestFailure(description: "not a write: \(jobs.submitted)") }
            // Short records: 3 header bytes each; the mime record's 255-byte type and 2-byte data,
            // the Text record's type `T`, status byte, 63-byte language and `hello`.
            let whole = (3 + 255 + 2) + (3 + 1 + 1 + 63 + 5)
            #expect(order.message.count == whole, "both records whole, nothing cut")
            jobs.finish(.refused(TagJobRefusal(.noTag, "none")))
        }
    }

    /// The issue's flood: tens of thousands of requests, forged and authenticated, as fast as the
    /// broker takes them. One job reaches the reader; the others are refused (`busy`) or dropped
    /// (no token) without a job or a kept task each (a task group that kept its finished children
    /// held them all); and the job is still answered. No subscriber keeps the 20,000 answers in
    /// this process while the heap is measured.
    @Test func aFloodOfRequestsClaimsOneTapAndKeepsNothing() async throws {
        let broker = try await MosquittoBroker()
        let jobs = HeldJobs()
        let plugin = try Self.plugin(broker, jobs: jobs)
        let commands = try #require(plugin.commands)
        try await plugin.whileRunning {
            do {
                let probes = try Subscriber(port: broker.port, filter: Self.topic + "/result", qos: 1)
                try await probes.waitUntilSubscribed()
                try await Self.waitUntilListening(broker, probes)
            }
            try broker.publishLines([Self.request(#""id":"first","uri":"https://example.com","timeout":100"#)], topic: Self.topic)
            #expect(await eventually { jobs.waiting == 1 })
            let count = 20_000
            let forged = Self.request(#""uri":"https://evil.example/x","timeout":100"#, token: nil)
            let busy = Self.request(#""uri":"https://example.com/again","timeout":100"#)
            let heapBefore = heapBytesInUse()
            try broker.publishLines(Array(repeating: forged, count: count), topic: Self.topic)
            try broker.publishLines(Array(repeating: busy, count: count), topic: Self.topic)
            #expect(await eventually(within: 120) { commands.refusals.count(.unauthenticated) == count && commands.refusals.count(.busy) == count })
            #expect(jobs.submitted.count == 1 && jobs.waiting == 1, "one request claims the reader's next tap")
            #expect(commands.slots.busyReaders == ["front-door"])
            // The answers leave the outbox as the broker acknowledges them; what stays is what is kept.
            var grown = Int.max
            #expect(await eventually(within: 60) {
                grown = heapBytesInUse() - heapBefore
                return grown < 4_000_000
            }, "the heap grew by \(grown) bytes over \(2 * count) requests")

            let results = try Subscriber(port: broker.port, filter: Self.topic + "/result", qos: 1)
            try await results.waitUntilSubscribed()
            let tag = TagInfo(uid: TagUID("04a224b2c35e80")!, type: "ntag215")
            jobs.finish(.written(TagWriteReport(reader: "front-door", tag: tag, records: 1, bytes: 20, verified: true, locked: false)))
            try await results.waitFor("the first request's answer") { $0.json["id"] == "first" }
            #expect(await eventually { commands.slots.busyReaders.isEmpty }, "the answer frees the reader")
        }
    }

    /// Refusals — `busy`, a bad request — are answered at once and unasked ones dropped, in the
    /// consumer: only the request that took its reader's slot becomes work for a task, so a flood
    /// starts no task per request (it started one each, and they could pile up behind the consumer).
    @Test func onlyTheRequestThatTakesItsReadersSlotIsLeftToATask() async throws {
        let broker = try await MosquittoBroker()
        let jobs = HeldJobs()
        let commands = try #require(try Self.plugin(broker, jobs: jobs).commands)
        func message(_ fields: String, token: String? = Self.token) -> MQTTMessage {
            MQTTMessage(topic: Self.topic, text: Self.request(fields, token: token))
        }
        guard case .perform(let perform) = commands.handle(message(#""id":"w1","uri":"https://example.com""#), reader: "front-door") else {
            Issue.record("the first request did not take the reader's slot")
            return
        }
        #expect(commands.slots.busyReaders == ["front-door"])
        for index in 0..<100 {
            guard case .answer(let answer) = commands.handle(message(#""id":"b\#(index)","uri":"https://example.com""#), reader: "front-door") else {
                Issue.record("request b\(index) was not answered at once")
                return
            }
            let json = try JSONValue.parse(answer.text)
            #expect(json["refused"] == "busy" && json["id"] == .string("b\(index)") && json["reader"] == "front-door", "\(json)")
        }
        guard case .answer(let bad) = commands.handle(message(#""id":"bad""#), reader: "front-door") else {
            Issue.record("a bad request was not answered at once")
            return
        }
        #expect(try JSONValue.parse(bad.text)["refused"] == "bad_request")
        guard case .dropped = commands.handle(message(#""id":"forged","uri":"https://evil.example""#, token: nil), reader: "front-door") else {
            Issue.record("a request without the token was answered")
            return
        }
        #expect(jobs.submitted.isEmpty, "nothing reached the reader before the task ran")

        let performing = Task { await perform() }
        #expect(await eventually { jobs.waiting == 1 })
        jobs.finish(.refused(TagJobRefusal(.noTag, "none")))
        let result = try JSONValue.parse(await performing.value.text)
        #expect(result["id"] == "w1" && result["reader"] == "front-door" && result["ok"] == false, "\(result)")
        #expect(commands.slots.busyReaders.isEmpty, "the answer gives the slot back")
        guard case .perform = commands.handle(message(#""id":"w2","uri":"https://example.com""#), reader: "front-door") else {
            Issue.record("the next request did not take the free slot")
            return
        }
    }
}
