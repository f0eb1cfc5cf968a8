/// Text in the Prometheus exposition format (version 0.0.4): one `# HELP` and
/// `# TYPE` per metric family, then its samples, label values escaped.
struct PrometheusText {
    /// The media type a scrape is answered with.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var text = ""

    /// Starts the family `name` of `type` (`counter`, `gauge`, `histogram`).
    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ value: Double) {
        sample(name, [], value)
    }

    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        sample(name, Array(labels), value)
    }

    mutating func sample(_ name: String, _ labels: [(key: String, value: String)], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escaped($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    /// A histogram's samples from cumulative bucket counts (`_bucket` per bound and `+Inf`, `_sum`, `_count`).
    mutating func histogram(_ name: String, _ labels: [(key: String, value: String)], bounds: [Double], cumulative: [Int], count: Int, sum: Double) {
        for (bound, inBucket) in zip(bounds, cumulative) {
            sample(name + "_bucket", labels + [("le", Self.format(bound))], Double(inBucket))
        }
        sample(name + "_bucket", labels + [("le", "+Inf")], Double(count))
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, Double(count))
    }

    /// Whole numbers without a fraction, others as Swift writes them (shortest exact form), and `+Inf`/`-Inf`/`NaN`.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
