// libFuzzer entry point for what an `mqtt` input reads from the broker: the payload
// parsers of the three formats, the intake's bounds, the signature check, and the
// topic filter and names. The first byte picks the format and a trust; the rest up to
// the first NUL is the payload, after it the topic. Built by scripts/fuzz.sh together
// with the MQTT plugin's sources as one module (it reaches their internals); not part
// of Package.swift.
import FoundationEssentials

let keys = ["pi-1": EventSignature.Key(id: "pi-1", secret: Array("0123456789abcdef0123456789abcdef".utf8))]
let intakes = [
    InputIntake(trust: .broker, keys: [:], maxAge: .seconds(300), localReaders: ["front-door"]),
    InputIntake(trust: .signed, keys: keys, maxAge: .seconds(300), localReaders: ["front-door"]),
]
let filters = ["fleet/+/+/tag.arrived", "tele/+/SENSOR", "nfc/#", "$share/g/+/#"].compactMap { try? TopicFilter.parse($0).get() }

/// Reads one message as each format; whatever the intake admits must be within its bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let selector = Int(bytes[0])
    let rest = bytes.dropFirst()
    let split = rest.firstIndex(of: 0) ?? rest.endIndex
    let payload = Array(rest[..<split])
    let topic = split < rest.endIndex ? String(decoding: rest[(split + 1)...], as: UTF8.self) : "fleet/pi-1/door/tag.arrived"
    let format = InputFormat.allCases[selector % InputFormat.allCases.count]
    let intake = intakes[(selector / 3) % intakes.count]
    // A signature over the payload itself must hold; one claimed by the payload's own bytes must not crash.
    let signed = MQTTMessage(topic: topic, payload: payload, userProperties: EventSignature.properties(signing: payload, with: keys["pi-1"]!))
    do { _ = try intake.signer(of: signed) } catch { preconditionFailure("a correct signature was refused: \(error)") }
    let claimed = MQTTMessage(topic: topic, payload: payload, userProperties: [.init("tagrouter-key-id", "pi-1"), .init("tagrouter-hmac-sha256", String(decoding: payload.prefix(64), as: UTF8.self))])
    _ = try? intake.signer(of: claimed)
    for filter in filters { _ = filter.matches(topic) }
    _ = TopicName(level: selector % 5).name(for: topic)
    do {
        guard case .event(var event) = try format.read(payload) else { return 0 }
        if format != .tagrouter { event.reader = String(decoding: payload.prefix(selector % 80), as: UTF8.self) }
        let admitted = try intake.admit(event)
        precondition(!admitted.id.isEmpty && admitted.id.utf8.count <= InputIntake.eventIDLimit, "an id out of bounds was admitted")
        precondition((admitted.tag?.uid.bytes.count ?? 0) <= InputIntake.uidByteLimit, "a UID out of bounds was admitted")
        precondition(InputIntake.nameProblem(admitted.reader) == nil, "a bad reader name was admitted: \(admitted.reader.debugDescription)")
        precondition(admitted.reader != "front-door", "an event spoke for a local reader")
        precondition(admitted.tag?.name == nil && admitted.tag?.groups.isEmpty != false, "a name or groups from the message were kept")
    } catch {
        precondition(!error.description.isEmpty, "a refusal without a reason")
    }
    return 0
}
