// libFuzzer entry point for the config loader: the input is a config file's text, loaded
// through `ConfigLoader` with every built-in action plugin, as `check-config` loads it —
// libyaml, the nesting/alias/size limits, the specs, the plugins' own checks, templates.
// Built by scripts/fuzz.sh against the TagRouter and plugin modules; not part of Package.swift.
import ExecPlugin
import MQTTPlugin
import OpenURLPlugin
import ShellPlugin
import TagRouter
import WebhookPlugin

/// The built-in action plugins (the executable's `builtinPlugins` without its `events` input,
/// which lives in the executable); a dry run builds every plugin and connects to nothing.
let loader = ConfigLoader(
    registry: PluginRegistry([LogPlugin.self, MQTTPlugin.self, ShellPlugin.self, OpenURLPlugin.self, WebhookPlugin.self, ExecPlugin.self]),
    environment: ["HOME": "/nonexistent", "HOOK_ID": "fuzz-secret-hook-id"], dryRun: true,
    stateDirectory: "/nonexistent/state", missingSecretsAreWarnings: true)

/// Loads one input; a trap, an unbounded recursion or unbounded memory is what libFuzzer
/// reports. Every problem must point into the file: its name, a line and a column that exist.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // libyaml breaks lines at \n, \r, U+0085, U+2028 and U+2029: a byte that can end one bounds the count.
    let lineBreakBytes: Set<UInt8> = [0x0A, 0x0D, 0x85, 0xA8, 0xA9]
    let lines = 1 + text.utf8.reduce(0) { lineBreakBytes.contains($1) ? $0 + 1 : $0 }
    let problems: [ConfigError]
    do {
        let config = try loader.load(text: text, file: "fuzz.yaml", directory: "/nonexistent")
        problems = config.warnings
        for route in config.routes { _ = route.name }
    } catch {
        precondition(!error.errors.isEmpty, "the loader threw without an error: \(error)")
        problems = error.sorted
    }
    for problem in problems where problem.mark.file == "fuzz.yaml" {
        precondition(problem.mark.line >= 1 && problem.mark.line <= lines + 1, "line out of the file: \(problem)")
        precondition(problem.mark.column >= 1, "column before the line: \(problem)")
        precondition(!problem.description.contains("fuzz-secret-hook-id"), "a secret printed: \(problem)")
    }
    return 0
}
