import FoundationEssentials
import NDEF

/// `write --from FILE`: a whole message as JSON (`{"records": […]}`, the form
/// `decode` prints and events carry) or as hex.
enum WriteSource {
    static func records(fromFile path: String) throws(CLIError) -> [NDEFRecord] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .runtime("cannot read '\(path)'") }
        let text = String(decoding: data, as: UTF8.self).trimmingWhitespace()
        if text.hasPrefix("{") {
            do {
                return try JSONDecoder().decode(NDEFMessage.self, from: Data(text.utf8)).records
            } catch {
                throw .data("\(path): not a message as JSON ({\"records\": [{\"tnf\": 1, \"type\": \"U\", \"payload_hex\": …}]}): \(error)")
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
