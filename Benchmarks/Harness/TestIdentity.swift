import ChildProcess

#if DEBUG && canImport(Testing)
import Testing
#endif

/// Which test a child process belongs to: the helpers put `TAGROUTER_TEST=<test id>` in the environment of
/// everything they start, so the lane runner (`scripts/test-lanes.py`) can name, and stop, what a test left
/// running once that test has ended.
public enum TestIdentity {
    /// The environment variable's name.
    public static let variable = "TAGROUTER_TEST"

    /// `[variable: id]` for the test running in this task (Swift Testing's `Test.current`); empty outside a
    /// test, and in release builds, which link no Swift Testing (the benchmarks are built that way).
    public static var environment: [String: String] {
        #if DEBUG && canImport(Testing)
        if let test = Test.current { return [variable: test.id.description] }
        #endif
        return [:]
    }

    /// The inherited environment with the test's identity and `extra` added, for a child a helper starts.
    public static func childEnvironment(adding extra: [String: String] = [:]) -> [String: String] {
        ChildCommand.inheritedEnvironment.merging(environment) { $1 }.merging(extra) { $1 }
    }
}
