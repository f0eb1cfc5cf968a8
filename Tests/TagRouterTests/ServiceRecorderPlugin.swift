import Lifecycle

@testable import TagRouter

/// A plugin with a long-lived part that reports to a `TestProbe` when its
/// service starts and when it ends (label: its section's `label`).
struct ServiceRecorderPlugin: ActionPlugin {
    static let name = "servicer"
    static let isKeptAcrossReloads = true
    static let sectionSpec: OptionSpec? = OptionSpec("test service", [
        Option("probe", .string, required: true, "the TestProbe id"),
        Option("label", .string, default: "s", "names the service in records"),
    ])
    static let actionSpec = OptionSpec("does nothing", [])

    let probe: TestProbe
    let label: String

    init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        guard let probe = TestProbe.named(section.optionalString("probe") ?? "") else {
            throw ConfigErrors(mark: SourceMark(file: "t.yaml", line: 1, column: 1), path: "servicer", message: "no such probe")
        }
        self.probe = probe
        label = section.string("label")
    }

    func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action { LogAction(template: nil, output: .standardOutput) }

    func run() async throws {
        probe.record(ProbeRecord(label: label, eventID: "", attempt: 0, step: .started))
        await Latch().wait()
        probe.record(ProbeRecord(label: label, eventID: "", attempt: 0, step: .stopped))
    }
}
