import FoundationEssentials
import SystemKit
import TagCore

/// Reading `tags:` — a list of entries in the config, or `{file: tags.yaml}`
/// naming a YAML file that holds the list (relative to the config file, read
/// again at every reload) — and checking it against the routes.
extension TagRegistry {
    /// The spec of `tags: {file: …}`.
    static let fileSpec = OptionSpec("named tags kept in a file of their own", [
        Option("file", .string, required: true, "a YAML file holding the list of tags, relative to the config file; while it does not exist or is empty there are none (`tagrouter tags learn` makes it)"),
    ])

    /// The meaning of the top-level `tags` key, for the reference.
    static let meaning = "named tags (see `tags[]`): a list, or `{file: tags.yaml}` naming a file that holds the list"

    /// Compiles the `tags` node of the config (nil: no tags), reporting every
    /// problem: bad entries, a name used twice, a UID or tag id under two names.
    static func load(_ node: ConfigNode?, context: ConfigContext, errors: inout ConfigErrors) -> TagRegistry {
        guard let node, !node.isNull else { return TagRegistry() }
        var list = node
        if node.entries != nil {
            let section = OptionValidator(context: context).validate(node, as: .section(fileSpec), path: "tags", errors: &errors)
            guard let file = section.optionalString("file") else { return TagRegistry() }
            let path = context.resolve(file)
            guard let bytes = FileBytes.read(path: path) else {
                if !FileManager.default.fileExists(atPath: path) { return TagRegistry() }  // no tag named yet
                errors.append(contentsOf: section.error("file", "cannot read the tags file \(path): \(FileBytes.whyUnreadable(path) ?? "read failed")"))
                return TagRegistry()
            }
            do {
                list = try YAMLParser.parse(String(decoding: bytes, as: UTF8.self), file: file)
            } catch {
                errors.append(contentsOf: error)
                return TagRegistry()
            }
            if list.isNull || list.entries?.isEmpty == true { return TagRegistry() }  // empty, or comments only
        }
        var invalid = ConfigErrors()
        let values = OptionValidator(context: context).validate(list, as: .list(.section(TagEntry.spec)), path: "tags", errors: &invalid).elements
        guard invalid.isEmpty else {
            errors.append(contentsOf: invalid)
            return TagRegistry()
        }
        var entries: [TagEntry] = []
        for value in values {
            do {
                entries.append(try TagEntry(value))
            } catch {
                errors.append(contentsOf: error)
            }
        }
        checkUnique(entries, values, &errors)
        return TagRegistry(entries)
    }

    /// A name, UID or tag id may belong to one entry only.
    private static func checkUnique(_ entries: [TagEntry], _ values: [ConfigValue], _ errors: inout ConfigErrors) {
        var names: [String: TagEntry] = [:]
        var uids: [TagUID: TagEntry] = [:]
        var tagIDs: [String: TagEntry] = [:]
        for (entry, value) in zip(entries, values) {
            if let first = names[entry.name] {
                errors.append(contentsOf: value.error("name", "tag name '\(entry.name)' is already used at line \(first.mark.line)"))
            }
            names[entry.name] = names[entry.name] ?? entry
            for uid in entry.uids {
                if let first = uids[uid], first.name != entry.name {
                    errors.append(contentsOf: value.error("uid", "UID \(uid.dashed) is listed under '\(first.name)' (line \(first.mark.line)) and '\(entry.name)'"))
                }
                uids[uid] = uids[uid] ?? entry
            }
            for tagID in entry.tagIDs {
                if let first = tagIDs[tagID], first.name != entry.name {
                    errors.append(contentsOf: value.error("tag_id", "tag id '\(tagID)' is listed under '\(first.name)' (line \(first.mark.line)) and '\(entry.name)'"))
                }
                tagIDs[tagID] = tagIDs[tagID] ?? entry
            }
        }
    }

    /// A warning for each route whose `tag:` gives a name (no wildcard) that no entry has: the route
    /// never matches by it, most likely a misspelling, so the name meant is suggested.
    func unknownNames(in routes: [Route]) -> [ConfigError] {
        let names = entries.map(\.name)
        return routes.flatMap { route in
            route.matcher.patterns(for: "tag").compactMap { pattern -> ConfigError? in
                guard case .glob(let glob) = pattern, !glob.pattern.contains(where: { "*?[\\".contains($0) }), !names.contains(glob.pattern) else { return nil }
                let hint = DidYouMean.suggestion(for: glob.pattern, among: names).map { " (did you mean '\($0)'?)" } ?? ""
                return ConfigError(
                    mark: route.mark, path: "routes.\(route.name).match.tag",
                    message: "no named tag is called '\(glob.pattern)'\(hint), so the route never matches by it", isWarning: true)
            }
        }
    }

    /// A warning for each named tag that no route's `tag:` or `group:` condition selects.
    func unused(by routes: [Route]) -> [ConfigError] {
        let tagPatterns = routes.flatMap { $0.matcher.patterns(for: "tag") }
        let groupPatterns = routes.flatMap { $0.matcher.patterns(for: "group") }
        // No route selects by name at all: the names are for events and Home Assistant only.
        guard !tagPatterns.isEmpty || !groupPatterns.isEmpty else { return [] }
        return entries.compactMap { entry in
            let used = tagPatterns.contains { $0.matches(entry.name) } || groupPatterns.contains { pattern in entry.groups.contains { pattern.matches($0) } }
            return used ? nil : ConfigError(
                mark: entry.mark, path: "tags",
                message: "no route matches tag '\(entry.name)' by `tag:` or `group:` (fine if the name is only for events and Home Assistant)",
                isWarning: true)
        }
    }
}
