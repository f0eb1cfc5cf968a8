// libFuzzer entry point for the template parser and renderer. The input is the template
// text, then optionally a NUL byte and the event variables as JSON (else a sample event).
// Built by scripts/fuzz.sh against the TagRouter module; not part of Package.swift.
import OrderedJSON
import TagRouter

/// The one secret a template can name: `display` must never print its value.
let secret = "fuzz-secret-hook-id"
let environment = ["HOOK_ID": secret, "HOME": "/home/fuzz"]

/// What a tag event's variables look like when the input brings none.
let sampleVariables = try! JSONValue.parse(bytes: Array("""
    {"event":"tag.arrived","id":"0b5c","time":"2026-01-01T00:00:00Z","reader":"door","route":"r",
     "tag":{"uid":"04a224","type":"ntag215","groups":["a","b"]},"uri":"https://example.com/?a=1&b=ü",
     "text":"Cheek to Cheek","ndef":{"records":[{"tnf":1,"type":"T","text":"x\\u0000y"}]}}
    """.utf8))

/// Parses (failing and with placeholders for unset variables), renders and displays one input;
/// an error's offset must lie inside the text, and `display` must mask the secret.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let source = String(decoding: bytes[..<split], as: UTF8.self)
    let variablesText = split < bytes.count ? Array(bytes[(split + 1)...]) : []
    let variables = (try? JSONValue.parse(bytes: variablesText)) ?? sampleVariables

    for mode in [Template.UnsetEnvironment.fail, .placeholder] {
        do {
            let template = try Template(source, environment: environment, unsetEnvironment: mode)
            _ = template.render(variables)
            _ = template.literalPrefix
            _ = template.isConstant
            let shown = template.display(variables)
            if !source.contains(secret), !variables.serialized().contains(secret) {
                precondition(!shown.contains(secret), "display printed the secret of \(source.debugDescription)")
            }
        } catch {
            precondition(error.offset >= 0 && error.offset <= source.count, "offset \(error.offset) outside the text: \(error)")
        }
    }
    return 0
}
