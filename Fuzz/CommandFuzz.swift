// libFuzzer entry point for MQTT write-command payloads (Plugins/MQTTPlugin/Commands): the
// input is one message on `<base_topic>/<reader>/write`, read as published and as retained.
// Built by scripts/fuzz.sh into the MQTTPlugin module itself (it reaches the plugin's
// internals); not part of Package.swift.
import NDEF
import OrderedJSON

let token = "fuzz-command-token-0123456789"
let commands = MQTTWriteCommands(baseTopic: "tagrouter", readers: ["door"], allowLock: false, token: CommandToken(token), jobs: nil)

/// Reads one message both ways; what gets past the token must carry it, a retained message is
/// never a job, and a job's NDEF message must decode strictly and encode back to the same bytes
/// (no field cut or left empty), with a timeout within the bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: payload, as: UTF8.self)
    let carriesToken = size <= MQTTWriteCommands.maximumPayload && (try? JSONValue.parse(text))?["token"]?.stringValue == token
    for retain in [false, true] {
        switch commands.read(MQTTMessage(topic: "tagrouter/door/write", payload: payload, retain: retain)) {
        case .dropped(let reason, _):
            precondition(!carriesToken || reason == .malformed, "a request with the token was dropped as \(reason)")
        case .refused(let refusal, _):
            precondition(carriesToken, "a request without the token was answered: \(refusal)")
        case .request(let request, _):
            precondition(carriesToken && !retain, "a request became a job without the token or while retained")
            precondition(request.job.timeout > .zero && request.job.timeout <= MQTTWriteCommands.maximumTimeout, "timeout \(request.job.timeout)")
            guard case .write(let order) = request.job.work else { preconditionFailure("an MQTT request that is not a write") }
            precondition(!order.lock, "lock without allow_lock")
            do {
                let decoded = try NDEFMessage(bytes: order.message)
                precondition(decoded.encoded() == order.message, "the written message does not encode back to itself")
            } catch {
                preconditionFailure("a request would write a message that does not decode: \(error)")
            }
        }
    }
    return 0
}
