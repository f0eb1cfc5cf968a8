import FoundationEssentials
import SystemKit
import TagCore
import TagRuntime

/// Reads a config file into a `RouterConfig`: YAML → nodes → checked against the
/// specs (the top level, readers, routes, matches, and each plugin's own) →
/// plugins built → routes compiled. Every problem is reported, all at once.
public struct ConfigLoader: Sendable {
    public let registry: PluginRegistry
    public let environment: [String: String]
    /// Passed to plugins: build everything, connect to nothing.
    public let dryRun: Bool
    /// Overrides the file's `state_dir` (`run --state-dir`).
    public let stateDirectory: String?

    /// `check-config`: a secret not provided yet is a warning (see `ConfigContext.missingSecretsAreWarnings`).
    public let missingSecretsAreWarnings: Bool
    /// Passed to plugins: the running daemon's readers, for reading and writing tags on request.
    public let tagJobs: (any TagJobRunner)?
    /// Passed to plugins: where the `log` action writes.
    public let output: LineOutput
    /// Passed to plugins: where they tell the readers how a tap ended (the daemon's board).
    public let feedback: FeedbackBoard

    /// Instances a reload may keep instead of building anew (see `LoadedPlugin`).
    private var keptPlugins: [LoadedPlugin] = []

    public init(registry: PluginRegistry, environment: [String: String] = ProcessInfo.processInfo.environment, dryRun: Bool = false,
                stateDirectory: String? = nil, missingSecretsAreWarnings: Bool = false, tagJobs: (any TagJobRunner)? = nil,
                output: LineOutput = .standardOutput, feedback: FeedbackBoard = FeedbackBoard()) {
        self.registry = registry
        self.output = output
        self.feedback = feedback
        self.tagJobs = tagJobs
        self.environment = environment
        self.dryRun = dryRun
        self.stateDirectory = stateDirectory
        self.missingSecretsAreWarnings = missingSecretsAreWarnings
    }

    /// This loader, using each of `plugins` again where the config gives it the
    /// same settings: a reload keeps them (their connections stay up).
    public func keeping(_ plugins: [LoadedPlugin]) -> ConfigLoader {
        var loader = self
        loader.keptPlugins = plugins
        return loader
    }

    /// The top-level keys: the fixed ones, then one section per plugin that has one.
    public var spec: OptionSpec {
        var options = [
            Option("readers", .list(.section(ReaderConfig.spec(kinds: registry.readers))), default: "[{name: reader, device: auto}]", "the NFC readers to watch"),
            Option(
                "inputs", .list(.any), default: "[]",
                "event sources besides the readers, one `- <kind>: <options>` each (kinds: "
                    + registry.sources.map { "`\($0.name)`" }.joined(separator: ", ") + "); see the `inputs[]` tables"),
            Option("routes", .list(.section(Route.spec)), default: "[]", "the rules, tried in file order; the first match wins unless it says `continue: true`"),
            Option("state_dir", .string, "where spools and plugin state are kept (default `$STATE_DIRECTORY`, else `$XDG_STATE_HOME/tagrouter`, else `~/.local/state/tagrouter`)"),
            Option("tags", .any, TagRegistry.meaning),
            Option("shutdown_timeout", .duration, default: "5s", "on SIGTERM, how long queued events may take to deliver before the rest is spooled"),
            Option("event_buffer", .int(1...1_000_000), default: "1000", "events waiting between the sources and the router, in each of two lanes: local readers' events, routed first (when full a reader's oldest event is dropped, counted, logged), and inputs' events (when full an input waits)"),
            Option("metrics", .section(MetricsSettings.spec), "Prometheus metrics and the live page; absent: no listener, no file"),
            Option("sun", .section(SUNSettings.spec), "NTAG 424 DNA SUN verification (`tag.sun`); absent: SUN URLs are not checked"),
            TagPasswordSetting.option,
        ]
        for plugin in registry.plugins {
            if let section = plugin.sectionSpec { options.append(Option(plugin.name, .section(section), "settings shared by every `\(plugin.name)` action")) }
        }
        return OptionSpec("the config file", options)
    }

    /// Loads the file at `path` (relative `*_file` paths then start from its directory).
    public func load(file path: String) throws(ConfigErrors) -> RouterConfig {
        // One byte past the limit is enough for the parser to refuse it: /dev/zero or a
        // huge file is not read whole.
        guard let data = Self.read(file: path) else { throw Self.unreadable(path) }
        return try load(contents: data, file: path)
    }

    /// The error for a config file that cannot be read, with the reason (`permission denied to user tagrouter (uid 64100)`).
    public static func unreadable(_ path: String) -> ConfigErrors {
        ConfigErrors(mark: SourceMark(file: path, line: 1, column: 1), path: "", message: "cannot read the config file: \(FileBytes.whyUnreadable(path) ?? "read failed")")
    }

    /// The bytes of the config file at `path`, up to one past the most that is
    /// loaded; nil when it cannot be read.
    public static func read(file path: String) -> [UInt8]? { FileBytes.read(path: path, limit: YAMLParser.Limits.fileBytes + 1) }

    /// Loads `contents`, read from the file at `path` (see `read(file:)`).
    public func load(contents: [UInt8], file path: String) throws(ConfigErrors) -> RouterConfig {
        let directory = path.parentPath
        return try load(text: String(decoding: contents, as: UTF8.self), file: path, directory: directory.isEmpty ? "." : directory)
    }

    /// Loads config text; `file` names it in messages.
    public func load(text: String, file: String, directory: String = FileManager.default.currentDirectoryPath) throws(ConfigErrors) -> RouterConfig {
        let context = ConfigContext(environment: environment, directory: directory, missingSecretsAreWarnings: missingSecretsAreWarnings)
        let root = try YAMLParser.parse(text, file: file)
        var errors = ConfigErrors()
        let top = OptionValidator(context: context).validate(root, as: .section(spec), path: "", errors: &errors)
        var readers: [ReaderConfig] = []
        for reader in top.list("readers") { readers.append(ReaderConfig.load(reader, kinds: registry.readers, &errors)) }
        checkUnique(top.list("readers"), key: "name", what: "reader", &errors)
        var sections: [String: ConfigValue] = [:]
        for plugin in registry.plugins { sections[plugin.name] = section(of: plugin, in: top) }
        let pluginContext = PluginContext(
            stateDirectory: stateDirectory(top), config: context, dryRun: dryRun, readers: readers, tagJobs: tagJobs, sections: sections, output: output,
            feedback: feedback)
        let plugins = buildPlugins(top, pluginContext, &errors)
        let inputs = buildInputs(top, pluginContext, &errors)
        var routes: [Route] = []
        var names: [String: SourceMark] = [:]
        for (index, route) in top.list("routes").enumerated() {
            let name = route.optionalString("name") ?? "route-\(index + 1)"
            if let first = names[name] {
                errors.append(contentsOf: route.error("name", "route name '\(name)' is already used at line \(first.line)"))
            }
            names[name] = names[name] ?? route.mark
            if let compiled = compile(route, name: name, plugins: plugins, &errors) { routes.append(compiled) }
        }
        if routes.isEmpty, errors.isEmpty {
            errors.append(ConfigError(
                mark: top.mark, path: "", message: "no routes: events are read but nothing is done with them; add a `routes:` list (config/examples has some)",
                isWarning: true))
        }
        let tags = TagRegistry.load(root["tags"], context: context, errors: &errors)
        // `originality_check: auto` follows what the routes and tags use (readers were read before them, for the plugins).
        let usesGenuine = GenuineUse.inConfig(routes: routes, routesNode: root["routes"], tags: tags)
        for (index, reader) in top.list("readers").enumerated() where reader.choice("originality_check", as: ReaderConfig.SignatureReading.self) == .auto {
            readers[index].readsSignature = usesGenuine
        }
        let metrics = top.has("metrics") ? MetricsSettings.load(top.section("metrics"), &errors) : nil
        let sun = top.has("sun") ? SUNSettings.load(top.section("sun"), stateDirectory: pluginContext.stateDirectory, dryRun: dryRun, &errors) : nil
        let tagPassword = TagPasswordSetting.load(top, &errors)
        if !errors.isEmpty { throw errors }
        var config = RouterConfig(
            file: file, readers: readers, inputs: inputs, stateDirectory: pluginContext.stateDirectory,
            shutdownTimeout: top.duration("shutdown_timeout"), eventBuffer: top.int("event_buffer"),
            plugins: plugins, routes: routes, tags: tags, metrics: metrics, sun: sun)
        config.tagPassword = tagPassword
        for warning in plugins.flatMap({ $0.plugin.warnings(routes: routes) }) + inputs.flatMap(\.source.warnings) + tags.unused(by: routes) + tags.unknownNames(in: routes) {
            errors.append(warning)
        }
        config.warnings = errors.sorted
        return config
    }

    private func stateDirectory(_ top: ConfigValue) -> String {
        if let stateDirectory { return stateDirectory }
        if let configured = top.optionalString("state_dir") { return top.context.resolve(configured) }
        if let systemd = environment["STATE_DIRECTORY"], !systemd.isEmpty { return systemd }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/tagrouter" }
        return (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state/tagrouter"
    }

    private func checkUnique(_ items: [ConfigValue], key: String, what: String, _ errors: inout ConfigErrors) {
        var seen: [String: Int] = [:]
        for item in items {
            let value = item.string(key)
            if let line = seen[value] {
                errors.append(contentsOf: item.error(key, "\(what) name '\(value)' is already used at line \(line)"))
            }
            seen[value] = seen[value] ?? item.mark.line
        }
    }

    /// The plugins named by an action or given a section, in registry order;
    /// a kept instance where it serves the same settings.
    private func buildPlugins(_ top: ConfigValue, _ context: PluginContext, _ errors: inout ConfigErrors) -> [LoadedPlugin] {
        let used = Set(top.list("routes").flatMap { route in
            (route.node["actions"]?.elements ?? []).compactMap { Self.actionName($0)?.name }
        })
        var plugins: [LoadedPlugin] = []
        for plugin in registry.plugins where used.contains(plugin.name) || (plugin.sectionSpec != nil && top.has(plugin.name)) {
            let section = context.sections[plugin.name] ?? section(of: plugin, in: top)
            if plugin.isKeptAcrossReloads, let kept = keptPlugins.first(where: { $0.serves(plugin.name, section: section, context: context) }) {
                plugins.append(kept)
                continue
            }
            do {
                plugins.append(LoadedPlugin(name: plugin.name, plugin: try plugin.init(section: section, context: context), section: section, context: context))
            } catch {
                errors.append(contentsOf: error)
            }
        }
        return plugins
    }

    /// The plugin's top-level section with its defaults; one that declares no keys for a plugin without a section.
    private func section(of plugin: any ActionPlugin.Type, in top: ConfigValue) -> ConfigValue {
        plugin.sectionSpec != nil ? top.section(plugin.name) : plugin.defaultSection(context: top.context)
    }

    /// The `inputs:` entries, each built by its source plugin.
    private func buildInputs(_ top: ConfigValue, _ context: PluginContext, _ errors: inout ConfigErrors) -> [ConfiguredInput] {
        var inputs: [ConfiguredInput] = []
        for (index, node) in (top.node["inputs"]?.elements ?? []).enumerated() {
            let path = "inputs[\(index)]"
            guard
                let (kind, sourceType, options) = entry(
                    node, path: path, what: "input", example: "`- events: /path/events.jsonl`", names: registry.sources.map { $0.name },
                    context: top.context, &errors, lookup: { name in registry.source(named: name).map { ($0, $0.spec) } })
            else { continue }
            var context = context
            context.inputIndex = index
            do {
                inputs.append(ConfiguredInput(kind: kind, path: path, source: try sourceType.init(options: options, context: context)))
            } catch {
                errors.append(contentsOf: error)
            }
        }
        return inputs
    }

    /// One `- <name>: <options>` entry (an action, an input): its name, what the
    /// registry has under that name, and its options validated against the spec
    /// `lookup` gives; nil, with the problems in `errors`, when any step fails.
    private func entry<Kind>(
        _ node: ConfigNode, path: String, what: String, example: String, names: [String], context: ConfigContext,
        _ errors: inout ConfigErrors, lookup: (String) -> (kind: Kind, spec: OptionSpec)?
    ) -> (name: String, kind: Kind, options: ConfigValue)? {
        guard let (name, optionsNode) = Self.actionName(node) else {
            errors.append(ConfigError(mark: node.mark, path: path, message: "expected one `<\(what)>: <options>` pair such as \(example), got \(node.kindDescription)"))
            return nil
        }
        guard let (kind, spec) = lookup(name) else {
            let hint = DidYouMean.suggestion(for: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            errors.append(ConfigError(mark: node.mark, path: path, message: "unknown \(what) '\(name)'\(hint); \(what)s are " + names.joined(separator: ", ")))
            return nil
        }
        var problems = ConfigErrors()
        let options = OptionValidator(context: context).validate(optionsNode, as: .section(spec), path: "\(path).\(name)", errors: &problems)
        errors.append(contentsOf: problems)  // warnings too: they do not stop the entry
        guard problems.isEmpty else { return nil }
        return (name, kind, options)
    }

    /// An action's plugin name and options: `- log`, `- log:`, `- mqtt: {…}`, `- open: "{{uri}}"`.
    private static func actionName(_ node: ConfigNode) -> (name: String, options: ConfigNode)? {
        if let name = node.scalar, !node.isNull { return (name, ConfigNode(.scalar("", plain: true), mark: node.mark)) }
        if let entries = node.entries, entries.count == 1 { return (entries[0].key, entries[0].value) }
        return nil
    }

    private func compile(_ route: ConfigValue, name: String, plugins: [LoadedPlugin], _ errors: inout ConfigErrors) -> Route? {
        var matcher: Matcher?
        do {
            matcher = try Matcher(route.section("match"))
        } catch {
            errors.append(contentsOf: error)
        }
        var actions: [ConfiguredAction] = []
        for (index, node) in (route.node["actions"]?.elements ?? []).enumerated() {
            let path = "\(route.path).actions[\(index)]"
            guard
                let (pluginName, _, options) = entry(
                    node, path: path, what: "action", example: "`- log` or `- mqtt: {topic: …}`", names: registry.names,
                    context: route.context, &errors, lookup: { name in registry[name].map { ($0, $0.actionSpec.adding(DeliveryPolicy.options)) } })
            else { continue }
            guard let plugin = plugins.first(where: { $0.name == pluginName })?.plugin else { continue }
            do {
                let action = try plugin.makeAction(options, route: name)
                actions.append(ConfiguredAction(plugin: pluginName, route: name, index: index, action: action, policy: DeliveryPolicy(options), mark: node.mark))
            } catch {
                errors.append(contentsOf: error)
            }
        }
        guard let matcher else { return nil }
        return Route(name: name, matcher: matcher, actions: actions, continues: route.bool("continue"), mark: route.mark)
    }
}
