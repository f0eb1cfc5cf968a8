/// The members of one JSON object read by name and type, for request and file
/// formats that are not the event: a member of the wrong type is an error naming
/// its path (`tags[1].uid`) and what was expected; a missing or `null` member is nil.
public struct JSONFields: Sendable {
    /// Where this object is in its document: empty for the top, else `tags[1]` or `sun.diversify`.
    public let path: String
    private let object: JSONObject

    /// `value` as an object; `what` names it in the error when it is something else.
    public init(_ value: JSONValue, path: String = "", what: String = "an object") throws(JSONFieldError) {
        guard case .object(let object) = value else { throw JSONFieldError(path: path, expected: what, got: value) }
        self.object = object
        self.path = path
    }

    /// The path of member `name`.
    public func path(of name: String) -> String { path.isEmpty ? name : path + "." + name }

    /// True when `name` is present and not `null`.
    public func contains(_ name: String) -> Bool { value(name) != nil }

    /// A string member.
    public func string(_ name: String) throws(JSONFieldError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let string) = value else { throw JSONFieldError(path: path(of: name), expected: "a string", got: value) }
        return string
    }

    /// A `true` or `false` member.
    public func bool(_ name: String) throws(JSONFieldError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let bool) = value else { throw JSONFieldError(path: path(of: name), expected: "true or false", got: value) }
        return bool
    }

    /// A whole number within `range`.
    public func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(JSONFieldError) -> Int? {
        guard let value = value(name) else { return nil }
        let expected = switch (range.lowerBound, range.upperBound) {
        case (Int.min, Int.max): "a whole number"
        case (let lower, Int.max): "a whole number, \(lower) or more"
        case (let lower, let upper): "a whole number from \(lower) to \(upper)"
        }
        guard case .int(let int) = value, let number = Int(exactly: int), range.contains(number) else { throw JSONFieldError(path: path(of: name), expected: expected, got: value) }
        return number
    }

    /// An object member, to read further.
    public func object(_ name: String) throws(JSONFieldError) -> JSONFields? {
        guard let value = value(name) else { return nil }
        return try JSONFields(value, path: path(of: name))
    }

    /// An array of objects, each read by `read` with its index in its path (`tags[1]`).
    public func objects<Element>(_ name: String, _ read: (JSONFields) throws(JSONFieldError) -> Element) throws(JSONFieldError) -> [Element]? {
        guard let value = value(name) else { return nil }
        guard case .array(let elements) = value else { throw JSONFieldError(path: path(of: name), expected: "an array of objects", got: value) }
        var items: [Element] = []
        for (index, element) in elements.enumerated() {
            items.append(try read(try JSONFields(element, path: path(of: name) + "[\(index)]")))
        }
        return items
    }

    private func value(_ name: String) -> JSONValue? {
        guard let value = object[name], value != .null else { return nil }
        return value
    }
}

/// A member of the wrong type or value: `tags[1].uid: expected a string, got a number (7)`.
public struct JSONFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The member's path in its document (empty for the document itself).
    public var path: String
    /// What the format takes there.
    public var expected: String
    /// What was found there; nil when the member is missing.
    public var found: String?

    /// What was expected at `path`, and the `value` found there.
    public init(path: String, expected: String, got value: JSONValue) {
        self.path = path
        self.expected = expected
        found = Self.describe(value)
    }

    /// A required member missing at `path`.
    public static func missing(_ path: String, expected: String) -> JSONFieldError {
        JSONFieldError(path: path, expected: expected, found: nil)
    }

    private init(path: String, expected: String, found: String?) {
        self.path = path
        self.expected = expected
        self.found = found
    }

    public var description: String {
        guard let found else { return "missing \"\(path)\": \(expected)" }
        return (path.isEmpty ? "" : path + ": ") + "expected \(expected), got \(found)"
    }

    /// A value's kind, with a short excerpt for scalars.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): "\(bool)"
        case .int, .double: "a number (\(value.serialized().prefix(20)))"
        case .string(let string): "a string (\(JSONValue.string(String(string.prefix(40))).serialized()))"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
