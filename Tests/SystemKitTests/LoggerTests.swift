import OrderedJSON
import Synchronization
import Testing

@testable import SystemKit

/// The log as a value: entries reach the logger bound to the task that wrote them, wherever that code runs, and
/// nothing is built below the level.
@Suite struct LoggerTests {
    @Test func entriesFromATaskItsChildrenAndItsThreadsReachItsLogger() async {
        let log = Collector()
        let logger = Logger(level: .debug, sink: log.sink)
        await Logger.$bound.withValue(logger) {
            Log.info("in the task", JSONObject(["reader": "door"]))
            await Task { Log.warning("in a child task") }.value
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DedicatedThread.start(name: "logger-test") {
                    Log.error("on a dedicated thread")
                    done.resume()
                }
            }
        }
        #expect(log.lines == ["info in the task", "warning in a child task", "error on a dedicated thread"])
        #expect(log.entries.first?.fields["reader"] == "door")
    }

    /// Two tasks logging at once, each with its own logger: neither sees the other's lines (nor does stderr, which
    /// only the process-wide logger writes to).
    @Test func tasksBoundToDifferentLoggersKeepTheirLinesApart() async {
        let left = Collector(), right = Collector()
        await withTaskGroup(of: Void.self) { group in
            for (name, log) in [("left", left), ("right", right)] {
                group.addTask {
                    await Logger.$bound.withValue(Logger(level: .debug, sink: log.sink)) {
                        for round in 0..<50 {
                            Log.debug(name, JSONObject(["round": .int(Int64(round))]))
                            await Task.yield()
                        }
                    }
                }
            }
        }
        #expect(left.lines == Array(repeating: "debug left", count: 50))
        #expect(right.lines == Array(repeating: "debug right", count: 50))
    }

    @Test func aMessageBelowTheLevelIsNeverBuilt() {
        let log = Collector()
        let built = Builds()
        Logger.$bound.withValue(Logger(level: .warning, sink: log.sink)) {
            Log.debug(built.message("debug"), built.fields())
            Log.info(built.message("info"), built.fields())
            Log.write(.debug, built.message("written at debug"), built.fields())
            Log.warning(built.message("warning"), built.fields())
        }
        Logger(level: .error, sink: log.sink).write(.warning, built.message("passed, below"), built.fields())
        #expect(built.count == 2, "the warning's message and fields, nothing else")
        #expect(log.lines == ["warning warning"])
    }

    @Test func aLoggerWithoutASinkWritesLinesInItsFormat() {
        let entry = Log.Entry(level: .warning, message: "reader gone", fields: JSONObject(["reader": "door"]))
        #expect(entry.line(.human) == "WARNING reader gone reader=door")
        let json = entry.line(.json)
        #expect(json.hasPrefix(#"{"time":""#))
        #expect(json.hasSuffix(#","level":"warning","msg":"reader gone","reader":"door"}"#))
    }
}

/// A sink that keeps what it is given.
private final class Collector: Sendable {
    private let kept = Mutex<[Log.Entry]>([])
    var sink: Log.Sink { { entry in self.kept.withLock { $0.append(entry) } } }
    var entries: [Log.Entry] { kept.withLock { $0 } }
    var lines: [String] { entries.map { "\($0.level.name) \($0.message)" } }
}

/// Counts the messages and fields a test's log calls build.
private final class Builds: Sendable {
    private let built = Atomic<Int>(0)
    var count: Int { built.load(ordering: .relaxed) }

    func message(_ text: String) -> String {
        built.add(1, ordering: .relaxed)
        return text
    }

    func fields() -> JSONObject {
        built.add(1, ordering: .relaxed)
        return JSONObject(["built": true])
    }
}
