import FoundationEssentials
import NDEF
import OrderedJSON
import SystemKit

/// `write --from FILE`: a whole message as JSON (`{"records": […]}`, the form
/// `decode` prints and events carry) or as hex.
enum WriteSource {
    static func records(fromFile path: String) throws(CLIError) -> [NDEFRecord] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .runtime("cannot read '\(path)'") }
        let text = String(decoding: data, as: UTF8.self).trimmingWhitespace()
        if text.hasPrefix("{") {
            let shape = #"({"records": [{"tnf": 1, "type": "U", "payload_hex": …}]})"#
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes: data)
            } catch {
                throw .data("\(path): not JSON \(error); a message as JSON looks like \(shape)")
            }
            do {
                return try NDEFMessage(vector: value).records
            } catch {
                throw .data("\(path): not a message as JSON \(shape): \(error)")
            }
        }
        guard let bytes = DecodeInput.hexBytes(text) else {
            throw .data("\(path): neither a message as JSON nor hex")
        }
        do {
            return try NDEFMessage(bytes: bytes).records
        } catch {
            throw .data("\(path): \(error)")
        }
    }
}
