import Foundation
import Harness

/// The Python the tests run with PyPI packages (prometheus_client, selenium):
/// `.build/test-venv`, made by `scripts/install-deps.sh` from `scripts/test-requirements.txt`.
public enum TestVenv {
    /// Its `python3`; throws, saying how to make it, when it is not there.
    public static func python() throws -> String {
        let path = BuiltProducts.packageRoot.appendingPathComponent(".build/test-venv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure(description: "\(path) is missing: run `make deps` (scripts/install-deps.sh) to make the tests' Python venv")
        }
        return path
    }
}
