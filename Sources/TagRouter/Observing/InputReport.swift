import OrderedJSON

/// What one entry of `inputs:` has counted (messages received, refused by
/// reason…), as `status` and the metrics show it. A source plugin reports its
/// counts through `SourcePlugin.counts`.
public struct InputReport: Sendable, Equatable {
    /// Where the input is in the config (`inputs[0]`).
    public var path: String
    /// The source plugin (`mqtt`).
    public var kind: String
    /// Counts by name (`received`, `refused_unsigned`…), in the plugin's order.
    public var counts: [Count]

    /// One named count.
    public struct Count: Sendable, Equatable {
        public var name: String
        public var value: Int

        public init(_ name: String, _ value: Int) { (self.name, self.value) = (name, value) }
    }

    public init(path: String, kind: String, counts: [Count]) {
        (self.path, self.kind, self.counts) = (path, kind, counts)
    }

    var json: JSONValue {
        var object = JSONObject(["input": .string(path), "kind": .string(kind)])
        for count in counts { object[count.name] = .int(Int64(count.value)) }
        return .object(object)
    }
}
