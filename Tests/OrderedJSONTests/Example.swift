import OrderedJSON

/// One row of a table: JSON text and the value it stands for.
struct Example: Sendable, CustomStringConvertible {
    var text: String
    var value: JSONValue
    var description: String { text }

    init(_ text: String, _ value: JSONValue) {
        self.text = text
        self.value = value
    }
}
