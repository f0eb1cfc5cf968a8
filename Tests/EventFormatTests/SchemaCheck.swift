import Foundation
import Harness
import OrderedJSON
import TestSupport

/// docs/event.schema.json applied by an independent validator: Debian's
/// python3-jsonschema, through `validate-events.py` beside this file.
enum SchemaCheck {
    static let schema = BuiltProducts.packageRoot.appendingPathComponent("docs/event.schema.json").path
    static let validator = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("validate-events.py").path

    /// What the validator says about each event that does not conform, `line N: at PATH: MESSAGE`
    /// (N counts from 1 in `events`); empty when all conform.
    static func problems(_ events: [JSONValue]) async throws -> [String] {
        let lines = events.map { $0.serialized() + "\n" }.joined()
        let run = try await ToolRun("/usr/bin/python3", [validator, schema], stdin: Array(lines.utf8))
        guard run.status == 0 || run.status == 1 else {
            throw TestFailure(description: "the schema validator failed (status \(run.status)); is python3-jsonschema installed (scripts/install-deps.sh)?\n\(run.stderr)")
        }
        return run.stdout.split(separator: "\n").map(String.init)
    }
}
