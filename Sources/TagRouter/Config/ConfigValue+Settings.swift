import OrderedJSON

/// A value's settings as one comparable snapshot — how a reload tells a plugin
/// section that did not change from one that did, wherever in the file it is
/// written now.
extension ConfigValue {
    /// What was written (keys in order, values typed the YAML way: quoted `"1"`
    /// differs from plain `1`), without line and column, and in place of each
    /// `*_file` secret its path and what the file holds now. Equal snapshots
    /// configure the same thing; a default written out differs from one left
    /// out (the cost of that is one needless rebuild).
    public var settings: JSONValue {
        switch type {
        case .secretFile?:
            return ["file": json, "contents": fileContents.map(JSONValue.string) ?? .null]
        case .section?:
            var object = JSONObject()
            for entry in node.entries ?? [] { object[entry.key] = child(entry.key)?.settings ?? .null }
            return .object(object)
        case .list?, .oneOrMany?:
            return node.elements == nil ? json : .array(elements.map(\.settings))
        case .map?:
            var object = JSONObject()
            for (key, value) in members { object[key] = value.settings }
            return .object(object)
        default:
            return json
        }
    }
}
