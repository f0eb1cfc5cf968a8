import Foundation
import OrderedJSON
import Synchronization
import TagCore

@testable import TagRouter

/// What a test's probe actions did: one record per call of `perform`.
struct ProbeRecord: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        case began, delivered, failed
        /// A plugin's service (`ServiceRecorderPlugin`) started or ended.
        case started, stopped
    }
    let label: String
    let eventID: String
    let attempt: Int
    let step: Step
}

/// Shared state between a test and the `recorder` actions it configures
/// (found by the `probe` option): a stream of records, a gate that blocks
/// actions with `block: true`, and a number of failures to inject.
final class TestProbe: Sendable {
    private static let all = Mutex<[String: TestProbe]>([:])

    let id = UUID().uuidString
    let records: AsyncStream<ProbeRecord>
    private let continuation: AsyncStream<ProbeRecord>.Continuation
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>], failures: Int)>((false, [], 0))

    init() {
        (records, continuation) = AsyncStream.makeStream()
        Self.all.withLock { $0[id] = self }
    }

    static func named(_ id: String) -> TestProbe? { all.withLock { $0[id] } }

    func record(_ record: ProbeRecord) { continuation.yield(record) }

    /// Lets blocked actions through, now and from now on.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until `open` (or the task is cancelled, as a well-behaved plugin does).
    func waitForGate() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open && !Task.isCancelled { state.waiters.append(continuation) }
                    return state.open || Task.isCancelled
                }
                if open { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { state in
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// The next `count` failures are retryable errors (`Int.max`: fail until changed).
    func failNext(_ count: Int) { state.withLock { $0.failures = count } }

    func takeFailure() -> Bool {
        state.withLock { state in
            guard state.failures > 0 else { return false }
            if state.failures != Int.max { state.failures -= 1 }
            return true
        }
    }

    /// The next `count` records, failing after `timeout` instead of hanging.
    func next(_ count: Int, where include: @escaping @Sendable (ProbeRecord) -> Bool = { $0.step == .delivered }, timeout: Duration = .seconds(20)) async throws -> [ProbeRecord] {
        let stream = records
        return try await withThrowingTaskGroup(of: [ProbeRecord].self) { group in
            group.addTask {
                var found: [ProbeRecord] = []
                for await record in stream where include(record) {
                    found.append(record)
                    if found.count == count { break }
                }
                return found
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw ProbeTimeout()
            }
            let result = try await group.next() ?? []
            group.cancelAll()
            return result
        }
    }
}

struct ProbeTimeout: Error {}

/// A test plugin whose actions report to a `TestProbe`.
struct RecorderPlugin: ActionPlugin {
    static let name = "recorder"
    static let actionSpec = OptionSpec("test recorder", [
        Option("probe", .string, required: true, "the TestProbe id"),
        Option("label", .string, default: "r", "names the action in records"),
        Option("block", .bool, default: "false", "wait for the probe's gate"),
        Option("permanent", .bool, default: "false", "injected failures are permanent"),
    ])

    init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {}

    func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        guard let probe = TestProbe.named(options.optionalString("probe") ?? "") else { throw options.error("probe", "no such probe") }
        return RecorderAction(probe: probe, label: options.string("label"), block: options.bool("block"), permanent: options.bool("permanent"))
    }
}

struct RecorderAction: Action {
    let probe: TestProbe
    let label: String
    let block: Bool
    let permanent: Bool

    func perform(_ delivery: Delivery) async throws(ActionError) {
        probe.record(ProbeRecord(label: label, eventID: delivery.event.id, attempt: delivery.attempt, step: .began))
        if block {
            await probe.waitForGate()
            if Task.isCancelled { throw .retryable("cancelled at shutdown") }
        }
        if probe.takeFailure() {
            probe.record(ProbeRecord(label: label, eventID: delivery.event.id, attempt: delivery.attempt, step: .failed))
            throw permanent ? .permanent("injected") : .retryable("injected")
        }
        probe.record(ProbeRecord(label: label, eventID: delivery.event.id, attempt: delivery.attempt, step: .delivered))
    }

    func describe(_ delivery: Delivery) -> String { "record \(label)" }
}

/// A router over `yaml` with `log`, `probe` and `recorder` plugins.
func makeRouter(_ yaml: String, stateDirectory: String? = nil, observer: DaemonObserver? = nil) throws -> Router {
    var config = try ConfigLoader(registry: PluginRegistry([LogPlugin.self, ProbePlugin.self, RecorderPlugin.self]), environment: ["HOME": "/tmp"])
        .load(text: yaml, file: "t.yaml")
    config.stateDirectory = stateDirectory ?? NSTemporaryDirectory() + "tagrouter-test-" + UUID().uuidString
    observer?.configured(config)
    return Router(config: config, observer: observer)
}

/// A tag.arrived event with the given fields.
func tagEvent(uid: String = "04a224b2c35e80", uri: String? = nil, text: String? = nil, reader: String = "door", type: String = "ntag215", records: [JSONValue]? = nil) -> TagEvent {
    var ndefRecords = records ?? []
    if records == nil {
        if let uri { ndefRecords.append(["tnf": 1, "type": "U", "id": "", "uri": .string(uri)]) }
        if let text { ndefRecords.append(["tnf": 1, "type": "T", "id": "", "text": .string(text), "lang": "en"]) }
    }
    return TagEvent(
        kind: .tagArrived, reader: reader, tag: TagInfo(uid: TagUID(uid)!, type: type, nfcForumType: 2),
        ndef: ndefRecords.isEmpty ? nil : .object(JSONObject(["records": .array(ndefRecords)])), uri: uri, text: text)
}
