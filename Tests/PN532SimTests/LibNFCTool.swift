import Foundation
import TestSupport

/// Debian's libnfc tools (`/usr/bin/nfc-*`), pointed at one device with autoscan off.
enum LibNFCTool {
    /// The environment that makes libnfc open `connstring` and nothing else.
    static func environment(_ connstring: String) -> [String: String] {
        ["LIBNFC_DEVICE": connstring, "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"]
    }

    /// Runs `tool` to its end, in `directory` when given.
    static func run(_ tool: String, _ arguments: [String] = [], connstring: String, currentDirectory: URL? = nil,
                    timeout: Duration = .seconds(30)) async throws -> ToolRun {
        try await ToolRun("/usr/bin/" + tool, arguments, environment: environment(connstring), directory: currentDirectory?.path, timeout: timeout)
    }
}
