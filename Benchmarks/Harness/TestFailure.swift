/// A helper (broker, subscriber, tool, simulator connection) that did not do what a test or benchmark waited for.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}
