import ChildProcess
import Foundation
import Glibc
import TagCore
import TagRouter
import Testing

/// The hostile tag texts every command test feeds: if any of them reached a
/// shell as code, it would create the file `pwned` in the working directory
/// (or remove the sandboxed home's canary).
let hostileTexts = [
    "$(touch pwned)", "`touch pwned`", "; touch pwned", "| touch pwned", "&& touch pwned", "\ntouch pwned\n",
    "'; touch pwned; '", "\"; touch pwned; \"", "; rm -rf ~", "$(rm -rf ~)", "${IFS}touch${IFS}pwned",
]

/// A tag-arrived event carrying `text` and `uri`.
func tagEvent(text: String? = nil, uri: String? = nil, reader: String = "door") -> TagEvent {
    TagEvent(kind: .tagArrived, reader: reader, tag: TagInfo(uid: TagUID("04a224b2c35e80")!, type: "ntag215", nfcForumType: 2), uri: uri, text: text)
}

/// Builds plugin `P` from YAML (its section, then one action), as the router would.
func makeAction<P: ActionPlugin>(
    _ plugin: P.Type, _ actionYAML: String, section sectionYAML: String? = nil, directory: String = FileManager.default.currentDirectoryPath
) throws -> (plugin: P, action: any Action) {
    let context = ConfigContext(directory: directory)
    let section = try sectionYAML.map { try ConfigValue.parse($0, spec: P.sectionSpec!, path: P.name, context: context) } ?? P.defaultSection(context: context)
    let instance = try P(section: section, context: PluginContext(stateDirectory: directory, config: context))
    // The router adds its delivery options (`retry`, …) to every action's spec.
    let spec = P.actionSpec.adding(DeliveryPolicy.options)
    let options = try ConfigValue.parse(actionYAML, spec: spec, path: "routes[0].actions[0].\(P.name)", context: context)
    return (instance, try instance.makeAction(options, route: "test"))
}

/// Runs `perform` and returns the error it threw, nil on success.
func failure(of action: any Action, _ delivery: Delivery) async -> ActionError? {
    do {
        try await action.perform(delivery)
        return nil
    } catch {
        return error
    }
}

extension ActionError {
    var isRetryable: Bool {
        if case .retryable = self { return true }
        return false
    }

    var retryAfter: Duration? {
        if case .retryable(_, let after) = self { return after }
        return nil
    }
}

/// A fresh directory under /tmp with helpers to write files and scripts, removed at the end.
final class Sandbox {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tagrouter-actions-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }

    /// Writes `contents` to `name`; `executable`: mode 755, `secret`: mode 600 (as every secret file must be).
    @discardableResult
    func write(_ name: String, _ contents: String, executable: Bool = false, secret: Bool = false) throws -> String {
        try FileManager.default.createDirectory(atPath: (file(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try contents.write(toFile: file(name), atomically: true, encoding: .utf8)
        if executable { chmod(file(name), 0o755) }
        if secret { chmod(file(name), 0o600) }
        return file(name)
    }
}

/// The repository root, for the shipped examples.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
