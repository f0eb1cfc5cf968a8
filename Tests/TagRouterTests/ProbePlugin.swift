import Synchronization

@testable import TagRouter

/// A plugin with a section and typed options, for loader tests.
struct ProbePlugin: ActionPlugin {
    static let name = "probe"
    static let isKeptAcrossReloads = true
    static let sectionSpec: OptionSpec? = OptionSpec("test section", [
        Option("broker", .template, default: "localhost", "a host"),
        Option("password_file", .secretFile, "a secret"),
    ])
    static let actionSpec = OptionSpec("test action", [
        Option("topic", .template, default: "t/{{reader}}", "a topic"),
        Option("qos", .int(0...2), default: "0", "a QoS"),
    ])

    let broker: String
    let password: String?

    init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        broker = section.template("broker").render(.null)
        password = section.child("password_file")?.fileContents
        if broker.isEmpty { throw section.error("broker", "must not be empty") }
    }

    func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        let topic = options.template("topic")
        if topic.source.contains("#") { throw options.error("topic", "a topic to publish to cannot hold '#'") }
        return ProbeAction(topic: topic)
    }
}

struct ProbeAction: Action {
    let topic: Template
    func perform(_ delivery: Delivery) async throws(ActionError) {}
    func describe(_ delivery: Delivery) -> String { "publish to \(topic.render(delivery.variables))" }
}
