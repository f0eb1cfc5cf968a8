import NDEF
import OrderedJSON
import TagKit

/// The control protocol of `tagrouter simulate`: one JSON request per line in,
/// one JSON response per line out (docs/simulator.md). Transport-free, so the
/// socket server and tests share it.
public struct SimulatorControl: Sendable {
    /// The field requests place tags in and take them out of.
    public let simulator: any SimulatedField
    private let counters: (@Sendable () -> PN532Counters)?
    /// The vpcd card's LED/buzzer log, read and (when asked) cleared.
    private let peripherals: (@Sendable (_ clear: Bool) -> [[UInt8]])?
    private let readCounters = ReadCounterMemory()

    /// Controls the PN532 simulator (with its counters).
    public init(simulator: PN532Simulator) {
        self.simulator = simulator
        counters = { simulator.counters }
        peripherals = nil
    }

    /// Controls the vpcd card (no chip, so no counters).
    public init(card: VPCDCard) {
        simulator = card
        counters = nil
        peripherals = { clear in clear ? card.takePeripheralLog() : card.peripheralLog }
    }

    /// The longest request line taken (a `place` of many tags with whole memory images fits many times over).
    public static let maximumRequestBytes = 1 << 20

    /// Answers one request line; never throws — failures come back as `{"error":…,"ok":false}`.
    public func respond(to line: String) -> String {
        let response: ControlResponse
        do throws(ControlError) {
            response = try handle(try Self.request(line))
        } catch {
            response = ControlResponse(error: error.description)
        }
        return response.json.serialized()
    }

    /// The request in `line`; errors name the byte offset or the member that is wrong.
    private static func request(_ line: String) throws(ControlError) -> ControlRequest {
        guard line.utf8.count <= maximumRequestBytes else {
            throw ControlError("the request has \(line.utf8.count) bytes or more; a request line takes at most \(maximumRequestBytes)")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            throw ControlError("not a JSON request: \(error)")
        }
        do {
            return try ControlRequest(try JSONFields(value, what: #"a request object such as {"op":"list"}"#))
        } catch {
            throw ControlError("\(error)")
        }
    }

    private func handle(_ request: ControlRequest) throws(ControlError) -> ControlResponse {
        switch request.op {
        case "place", "replace":
            readCounters.remember(simulator.tags)
            let specs = request.tags ?? request.tag.map { [$0] } ?? []
            var tags: [any SimulatedTag] = []
            for spec in specs { tags.append(try spec.makeTag(readCounters: readCounters)) }
            if request.op == "replace" { simulator.replaceAll(with: tags) } else { simulator.place(tags) }
            return ControlResponse(tags: tags.map(TagSummary.init))
        case "remove":
            readCounters.remember(simulator.tags)
            guard let uid = request.uid else {
                let count = simulator.tags.count
                simulator.removeAll()
                return ControlResponse(removed: count)
            }
            let bytes = try uidBytes(uid)
            let removed = request.afterExchanges.map { simulator.remove(uid: bytes, afterExchanges: $0) } ?? simulator.remove(uid: bytes)
            return ControlResponse(removed: removed ? 1 : 0)
        case "list":
            return ControlResponse(tags: simulator.tags.map(TagSummary.init))
        case "dump":
            guard let uid = request.uid else { throw ControlError("dump needs \"uid\"") }
            guard let tag = simulator.tag(uid: try uidBytes(uid)) else { throw ControlError("no tag with UID \(uid) is in the field") }
            var summary = TagSummary(tag)
            summary.memory = Hex.string(tag.memory)
            return ControlResponse(tags: [summary])
        case "counters":
            guard let counters else { throw ControlError("the vpcd card has no chip counters") }
            return ControlResponse(counters: counters())
        case "feedback":
            guard let peripherals else { throw ControlError("a PN532 has no LEDs or buzzer: feedback is recorded by the vpcd card (--vpcd)") }
            return ControlResponse(feedback: peripherals(request.clear ?? false).map { Hex.string($0) })
        default:
            throw ControlError("unknown op '\(request.op)'; use place, replace, remove, list, dump, counters or feedback")
        }
    }

    private func uidBytes(_ text: String) throws(ControlError) -> [UInt8] {
        try TagSpec.hex(text.filter { $0 != "-" && $0 != ":" && $0 != " " }, field: "uid")
    }
}

/// One response line, its members in sorted order (docs/simulator.md).
struct ControlResponse {
    var error: String?
    var tags: [TagSummary]?
    var removed: Int?
    var counters: PN532Counters?
    /// The LED/buzzer commands the vpcd card's reader received, each as hex.
    var feedback: [String]?

    init(error: String? = nil, tags: [TagSummary]? = nil, removed: Int? = nil, counters: PN532Counters? = nil, feedback: [String]? = nil) {
        self.error = error
        self.tags = tags
        self.removed = removed
        self.counters = counters
        self.feedback = feedback
    }

    var json: JSONValue {
        var object = JSONObject()
        if let counters { object["counters"] = counters.json }
        if let error { object["error"] = .string(error) }
        if let feedback { object["feedback"] = .array(feedback.map(JSONValue.string)) }
        object["ok"] = .bool(error == nil)
        if let removed { object["removed"] = .int(Int64(removed)) }
        if let tags { object["tags"] = .array(tags.map(\.json)) }
        return .object(object)
    }
}

/// A tag as responses describe it.
struct TagSummary {
    var type: String
    var uid: String
    var memory: String?

    init(_ tag: any SimulatedTag) {
        type = tag.typeName
        uid = Hex.string(tag.activation.uid)
    }

    /// Members in sorted order.
    var json: JSONValue {
        var object = JSONObject()
        if let memory { object["memory"] = .string(memory) }
        object["type"] = .string(type)
        object["uid"] = .string(uid)
        return .object(object)
    }
}
