import Foundation
import Harness
import OrderedJSON
import TestSupport

/// The daemon's metrics as Prometheus's own parser (prometheus_client, through
/// `scrape-metrics.py` beside this file) reads them: from its listener or its textfile.
struct MetricsScrape {
    /// One sample: the series name (`tagrouter_events_total`, `…_bucket`), its labels, its value.
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var status: Int
    /// The answer's body when it was not 200.
    var body: String
    var wwwAuthenticate: String?
    var contentType: String?
    /// Metric family → type (`counter`, `gauge`, `histogram`), as the parser saw them.
    var types: [String: String]
    var samples: [Sample]

    /// Scrapes `source` (a URL, or a file path) with `token` as the bearer token; throws when the parser refuses the text.
    init(_ source: String, token: String? = nil) async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("scrape-metrics.py").path
        let run = try await ToolRun(try TestVenv.python(), [script, source] + (token.map { [$0] } ?? []))
        guard run.status == 0 else { throw TestFailure(description: "prometheus_client could not read \(source): \(run.stderr)") }
        let json = try JSONValue.parse(run.stdout)
        status = Int(Self.number(json["status"]) ?? 0)
        body = json["body"]?.stringValue ?? ""
        wwwAuthenticate = json["www_authenticate"]?.stringValue
        contentType = json["content_type"]?.stringValue
        var types: [String: String] = [:]
        if case .object(let object)? = json["types"] { for (name, type) in object { types[name] = type.stringValue } }
        self.types = types
        guard case .array(let elements)? = json["samples"] else {
            samples = []
            return
        }
        samples = elements.map { element in
            var labels: [String: String] = [:]
            if case .object(let object)? = element["labels"] { for (name, value) in object { labels[name] = value.stringValue } }
            return Sample(name: element["name"]?.stringValue ?? "", labels: labels, value: Self.number(element["value"]) ?? .nan)
        }
    }

    /// The value of the one sample `name` with exactly `labels`; nil when there is none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let int)?: return Double(int)
        case .double(let double)?: return double
        default: return nil
        }
    }
}

extension RunningTool {
    /// The address (`127.0.0.1:41234`) of the daemon's HTTP listener once it says it is ready.
    func httpAddress() async throws -> String {
        let line = try await waitForStderr(containing: "http listener ready")
        guard let address = (try JSONValue.parse(line.text))["address"]?.stringValue else {
            throw TestFailure(description: "no address in \(line.text)")
        }
        return address
    }
}
