/// A default that is not a valid value of its own option is what every config
/// without that key would run with — and the typed getters trap on it. Checked
/// for every spec a registry holds, in debug builds, when the registry is made.
extension OptionSpec {
    /// Each declared default of this spec and its nested sections that does not
    /// validate as its option's type, as `path.key: default: problem`.
    public func invalidDefaults(path: String) -> [String] {
        options.flatMap { option -> [String] in
            let key = path.isEmpty ? option.name : "\(path).\(option.name)"
            var problems: [String] = []
            if let text = option.defaultValue {
                guard let node = try? YAMLParser.parse(text, file: "default of \(key)") else { return ["\(key): default \(text) is not YAML"] }
                var errors = ConfigErrors()
                _ = OptionValidator(context: ConfigContext()).validate(node, as: option.type, path: key, errors: &errors)
                problems += errors.errors.map { "\(key): default \(text): \($0.message)" }
            }
            switch option.type {
            case .section(let inner), .list(.section(let inner)): problems += inner.invalidDefaults(path: key)
            default: break
            }
            return problems
        }
    }
}

extension PluginRegistry {
    /// Every invalid default of every action, section, source and reader kind spec in the registry.
    public var invalidDefaults: [String] {
        // Built in steps: Swift 6.0.3 (Debian 13's) cannot type-check the one expression in time.
        var problems: [String] = []
        for plugin in plugins {
            problems += plugin.actionSpec.invalidDefaults(path: "- \(plugin.name)")
            problems += plugin.sectionSpec?.invalidDefaults(path: plugin.name) ?? []
        }
        for source in sources {
            problems += source.spec.invalidDefaults(path: "inputs[].\(source.name)")
        }
        return problems + OptionSpec("", readers.options).invalidDefaults(path: "readers[]")
    }
}
