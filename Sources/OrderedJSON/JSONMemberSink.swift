/// Where an object's members go, one at a time and in order: a `JSONObject`
/// (a tree to keep, walk or change) or a `JSONWriter.Members` (text, written
/// straight into the writer's bytes). Code that describes a document once in
/// terms of a sink gets both without two copies of its field logic.
public protocol JSONMemberSink {
    /// Adds the member `key` (a key is given once per object).
    mutating func member(_ key: String, _ value: JSONValue)
    /// Adds the member `key` with a string value, without building a `JSONValue`.
    mutating func member(_ key: String, string value: String)
    /// Adds the member `key` with a value that may still be text (written as it is, or built for a tree).
    mutating func member(_ key: String, _ value: LazyJSONValue)
    /// Adds the member `key` with `bytes` as a string of lowercase hex digits (`"d101"`).
    mutating func member(_ key: String, hex bytes: [UInt8])
    /// Adds the member `key`: an object whose members `body` gives.
    mutating func member(_ key: String, object body: (inout Self) -> Void)
    /// Adds the member `key`: an array with one object per element, whose members `each` gives.
    mutating func member<Element>(_ key: String, objects elements: [Element], _ each: (Element, inout Self) -> Void)
}

extension JSONMemberSink {
    public mutating func member(_ key: String, string value: String) { member(key, .string(value)) }
    public mutating func member(_ key: String, _ value: LazyJSONValue) { member(key, value.value) }
    public mutating func member(_ key: String, hex bytes: [UInt8]) { member(key, .string(JSONWriter.hexString(bytes))) }
}

extension JSONObject: JSONMemberSink {
    /// Appended without looking for the key among the members before it: a sink is given each key once.
    public mutating func member(_ key: String, _ value: JSONValue) { append(key, value) }

    public mutating func member(_ key: String, object body: (inout JSONObject) -> Void) {
        var object = JSONObject(reservingCapacity: 12)
        body(&object)
        append(key, .object(object))
    }

    public mutating func member<Element>(_ key: String, objects elements: [Element], _ each: (Element, inout JSONObject) -> Void) {
        append(key, .array(elements.map { element in
            var object = JSONObject(reservingCapacity: 8)
            each(element, &object)
            return .object(object)
        }))
    }
}

extension JSONWriter {
    /// The members of the object `JSONWriter.writeObject` is writing.
    public struct Members: JSONMemberSink {
        fileprivate var writer: JSONWriter
        fileprivate var count = 0

        public mutating func member(_ key: String, _ value: JSONValue) {
            writeKey(key)
            writer.write(value)
        }

        public mutating func member(_ key: String, string value: String) {
            writeKey(key)
            writer.write(value)
        }

        public mutating func member(_ key: String, _ value: LazyJSONValue) {
            writeKey(key)
            writer.write(value)
        }

        public mutating func member(_ key: String, hex bytes: [UInt8]) {
            writeKey(key)
            writer.write(hex: bytes)
        }

        public mutating func member(_ key: String, object body: (inout Members) -> Void) {
            writeKey(key)
            writer.writeObject(body)
        }

        public mutating func member<Element>(_ key: String, objects elements: [Element], _ each: (Element, inout Members) -> Void) {
            writeKey(key)
            writer.writeArray(count: elements.count) { writer, position in
                writer.writeObject { members in each(elements[position], &members) }
            }
        }

        private mutating func writeKey(_ key: String) {
            writer.writeKey(key, position: count)
            count += 1
        }
    }

    /// Writes an object whose members `body` adds, straight into the bytes (no `JSONValue` built).
    public mutating func writeObject(_ body: (inout Members) -> Void) {
        var members = Members(writer: .placeholder)
        swap(&members.writer, &self)  // moved, not copied: the bytes stay uniquely referenced
        members.writer.openContainer(UInt8(ascii: "{"))
        body(&members)
        members.writer.closeContainer(UInt8(ascii: "}"), empty: members.count == 0)
        swap(&members.writer, &self)
    }
}
