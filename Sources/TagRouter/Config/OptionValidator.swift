import FoundationEssentials

/// Checks a node against an `OptionType`, collecting every problem with its
/// line and column (it never stops at the first).
public struct OptionValidator: Sendable {
    public let context: ConfigContext

    public init(context: ConfigContext) { self.context = context }

    /// Validates `node` and wraps it; problems go to `errors`.
    public func validate(_ node: ConfigNode, as type: OptionType, path: String, errors: inout ConfigErrors) -> ConfigValue {
        check(node, type, path, &errors)
        return ConfigValue(node: node, path: path, type: type, context: context)
    }

    /// YAML's booleans (the core schema's spellings).
    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    private func fail(_ errors: inout ConfigErrors, _ node: ConfigNode, _ path: String, _ message: String) {
        errors.append(ConfigError(mark: node.mark, path: path, message: message))
    }

    private func check(_ node: ConfigNode, _ type: OptionType, _ path: String, _ errors: inout ConfigErrors) {
        switch type {
        case .any:
            return
        case .section(let spec):
            checkSection(node, spec, path, &errors)
        case .list(let element):
            guard let elements = node.elements else {
                return fail(&errors, node, path, "expected a list, got \(node.kindDescription)")
            }
            for (index, child) in elements.enumerated() { check(child, element, "\(path)[\(index)]", &errors) }
        case .oneOrMany(let element):
            if let elements = node.elements {
                for (index, child) in elements.enumerated() { check(child, element, "\(path)[\(index)]", &errors) }
            } else {
                check(node, element, path, &errors)
            }
        case .map(let value):
            guard let entries = node.entries else {
                return fail(&errors, node, path, "expected a mapping of names to values, got \(node.kindDescription)")
            }
            for entry in entries { check(entry.value, value, "\(path).\(entry.key)", &errors) }
        default:
            checkScalar(node, type, path, &errors)
        }
    }

    private func checkSection(_ node: ConfigNode, _ spec: OptionSpec, _ path: String, _ errors: inout ConfigErrors) {
        let entries: [ConfigNode.Entry]
        if node.isNull {
            entries = []
        } else if let mapping = node.entries {
            entries = mapping
        } else if let option = spec.scalarOption {
            entries = [ConfigNode.Entry(key: option, keyMark: node.mark, value: node)]
        } else {
            return fail(&errors, node, path, "expected a mapping with keys " + spec.options.map(\.name).joined(separator: ", ") + ", got \(node.kindDescription)")
        }
        let names = spec.options.map(\.name)
        for entry in entries {
            let childPath = path.isEmpty ? entry.key : "\(path).\(entry.key)"
            guard let option = spec.option(entry.key) else {
                errors.append(ConfigError(mark: entry.keyMark, path: path, message: DidYouMean.unknownKey(entry.key, among: names)))
                continue
            }
            check(entry.value, option.type, childPath, &errors)
        }
        for option in spec.options where option.required && !entries.contains(where: { $0.key == option.name }) {
            fail(&errors, node, path, "missing required key '\(option.name)' (\(option.meaning))")
        }
    }

    private func checkScalar(_ node: ConfigNode, _ type: OptionType, _ path: String, _ errors: inout ConfigErrors) {
        guard let text = node.scalar, !node.isNull else {
            return fail(&errors, node, path, "expected \(Self.expectation(type)), got \(node.kindDescription)")
        }
        let plain: Bool
        if case .scalar(_, let isPlain) = node.content { plain = isPlain } else { plain = false }
        switch type {
        case .int(let range):
            guard plain, let value = Int(text) else {
                return fail(&errors, node, path, "expected \(Self.expectation(type)), got \(node.kindDescription)")
            }
            if let range, !range.contains(value) {
                fail(&errors, node, path, "expected \(Self.expectation(type)), got \(value)")
            }
        case .bool:
            if !plain || Self.bool(text) == nil {
                fail(&errors, node, path, "expected true or false, got \(node.kindDescription)")
            }
        case .duration:
            if Duration(configText: text) == nil {
                fail(&errors, node, path, "expected a duration such as 500ms, 5s, 2m or 1h, got \(node.kindDescription)")
            }
        case .template:
            do {
                for name in try context.template(text).unsetEnvironment {
                    errors.append(ConfigError(
                        mark: node.mark, path: path, message: "environment variable '\(name)' is not set; `run` refuses to start until it is (export \(name)=…)",
                        isWarning: true))
                }
            } catch {
                let quoted = plain ? 0 : 1
                let mark = SourceMark(file: node.mark.file, line: node.mark.line, column: node.mark.column + quoted + error.offset)
                errors.append(ConfigError(mark: mark, path: path, message: "template: \(error.message)"))
            }
        case .choice(let words):
            if !words.contains(text) {
                let hint = DidYouMean.suggestion(for: text, among: words).map { " (did you mean '\($0)'?)" } ?? ""
                fail(&errors, node, path, "expected \(Self.expectation(type)), got \(node.kindDescription)\(hint)")
            }
        case .secretFile:
            if let problem = SecretFile(path: context.resolve(text)).problem {
                let isWarning = context.missingSecretsAreWarnings && problem != .file(problem.message)
                let consequence = isWarning ? "; `run` refuses to start until it can" : ""
                errors.append(ConfigError(mark: node.mark, path: path, message: problem.message + consequence, isWarning: isWarning))
            }
        default:
            return
        }
    }

    /// "an integer", "0, 1 or 2", "one of a, b or c" — what a value of `type` looks like.
    static func expectation(_ type: OptionType) -> String {
        switch type {
        case .int(let range?) where range.count <= 5:
            return alternatives(range.map(String.init))
        case .int(let range?):
            return "an integer from \(range.lowerBound) to \(range.upperBound)"
        case .int(nil): return "an integer"
        case .bool: return "true or false"
        case .duration: return "a duration such as 500ms, 5s or 2m"
        case .template: return "a template (text with {{variables}})"
        case .choice(let words): return alternatives(words)
        case .secretFile: return "a file path"
        case .list: return "a list"
        case .map, .section: return "a mapping"
        case .string, .oneOrMany, .any: return "a string"
        }
    }

    private static func alternatives(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}
