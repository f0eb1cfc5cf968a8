import Foundation

/// Where the package's built executables are, for tests that run them as a user does.
public enum BuiltProducts {
    /// The package's root folder, found from this source file.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The built executable `name`: next to the test bundle (`.build/<config>/`), else in `.build/debug`.
    public static func executable(_ name: String) -> URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL,
                          packageRoot.appendingPathComponent(".build/debug")]
        for folder in candidates.compactMap({ $0 }) {
            let url = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)")
    }

    /// The `tagrouter` binary.
    public static var tagrouter: URL { executable("tagrouter") }

    /// A copy of `tagrouter` in `directory` (made enterable by everyone), for tests that run it as another
    /// user: the checkout may sit in a folder only its owner can enter (a `mktemp -d` clone).
    public static func tagrouterForOtherUsers(in directory: String) throws -> String {
        chmod(directory, 0o755)
        let copy = directory + "/tagrouter"
        try FileManager.default.copyItem(atPath: tagrouter.path, toPath: copy)
        chmod(copy, 0o755)
        return copy
    }
}
